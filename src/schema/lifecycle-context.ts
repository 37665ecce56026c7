import { z } from 'zod';
import { CODING_MACHINE_ID } from '../../machines/coding.machine.js';
import { CODING_WORK_STATES, type CodingContext } from '../../machines/coding.types.js';
import { DELIVERABLE_MACHINE_ID } from '../../machines/deliverable.machine.js';
import { DELIVERABLE_WORK_STATES, type DeliverableContext } from '../../machines/deliverable.types.js';

/**
 * The context of a persisted lifecycle snapshot (inside `<workspace>/.fed/state/lifecycle.json`), per
 * machine. A snapshot whose state exists but whose context lacks a field, or holds the wrong kind of
 * value, would restore and then fail inside a guard or action; it is refused before use instead.
 * Typed against the machines' context interfaces, so a field added there without a schema does not compile.
 */
const mission = z.strictObject({ signalId: z.string(), subject: z.string(), body: z.string() });
const signalSeen = z.strictObject({ signalId: z.string(), subject: z.string(), at: z.string().optional() });
const failure = z.strictObject({ reason: z.string(), state: z.string() });

function commonContext<const TWork extends readonly [string, ...string[]]>(workStates: TWork) {
  return {
    mission: mission.nullable(),
    pausedFrom: z.enum(workStates).nullable(),
    failure: failure.nullable(),
    lastDirective: signalSeen.nullable(),
    lastQuestion: signalSeen.nullable(),
    enteredAt: z.record(z.string(), z.string()),
  };
}

export const deliverableContextSchema: z.ZodType<DeliverableContext> = z.strictObject({
  ...commonContext(DELIVERABLE_WORK_STATES),
  sources: z.array(z.string()),
  filesRead: z.number().nullable(),
  insights: z.array(z.string()),
  document: z.strictObject({ path: z.string(), bytes: z.number() }).nullable(),
});

export const codingContextSchema: z.ZodType<CodingContext> = z.strictObject({
  ...commonContext(CODING_WORK_STATES),
  tasks: z.array(z.string()),
  commit: z.string().nullable(),
  lastTestRun: z.strictObject({ passed: z.number(), failed: z.number() }).nullable(),
  reworks: z.number().int().nonnegative(),
  pullRequest: z.string().nullable(),
  lastReview: z
    .strictObject({ outcome: z.enum(['changes-requested', 'approved']), reviewer: z.string().nullable(), comments: z.array(z.string()) })
    .nullable(),
  mergeCommit: z.string().nullable(),
});

/** By machine id (the `machineId` of the envelope). */
export const lifecycleContextSchemas: Readonly<Record<string, z.ZodType>> = {
  [DELIVERABLE_MACHINE_ID]: deliverableContextSchema,
  [CODING_MACHINE_ID]: codingContextSchema,
};
