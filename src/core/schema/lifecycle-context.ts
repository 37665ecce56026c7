import { z } from 'zod';

/**
 * The context of a persisted lifecycle snapshot (inside `<workspace>/.fed/state/lifecycle.json`): the
 * part every lifecycle shares. Each archetype declares the whole schema of its machine's context in its
 * folder (`src/engine/archetypes/<id>/context-schema.ts`) from these, typed against the machine's context
 * interface so a field added there without a schema does not compile. A snapshot whose state exists but
 * whose context lacks a field, or holds the wrong kind of value, would restore and then fail inside a
 * guard or action; it is refused before use instead.
 */
const mission = z.strictObject({ signalId: z.string(), subject: z.string(), body: z.string() });
export const signalSeenSchema = z.strictObject({
  signalId: z.string(),
  subject: z.string(),
  at: z.string().optional(),
});
const failure = z.strictObject({ reason: z.string(), state: z.string() });

export function commonContext<const TWork extends readonly [string, ...string[]]>(workStates: TWork) {
  return {
    mission: mission.nullable(),
    pausedFrom: z.enum(workStates).nullable(),
    failure: failure.nullable(),
    lastDirective: signalSeenSchema.nullable(),
    lastQuestion: signalSeenSchema.nullable(),
    enteredAt: z.record(z.string(), z.string()),
  };
}
