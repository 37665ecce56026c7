import { z } from 'zod';
import { hasOnlyKeys, isRecordOf, isString, orNull } from './quick-check.js';

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

// From the schemas' shapes: a key added there passes unchecked until the quick check looks at it, and the
// quick checks' test fails until its context has the key (uncoveredKeys).
const MISSION_KEYS: ReadonlySet<string> = new Set(Object.keys(mission.shape));
const SIGNAL_SEEN_KEYS: ReadonlySet<string> = new Set(Object.keys(signalSeenSchema.shape));
const FAILURE_KEYS: ReadonlySet<string> = new Set(Object.keys(failure.shape));

/** The keys commonContext gives every lifecycle's context (a test holds them to it). */
export const COMMON_CONTEXT_KEYS = ['mission', 'pausedFrom', 'failure', 'lastDirective', 'lastQuestion', 'enteredAt'];

/** signalSeenSchema's quick check (see quick-check.ts); `extra` checks the keys an extension adds. */
export function isWellFormedSignalSeen(
  value: unknown,
  keys: ReadonlySet<string> = SIGNAL_SEEN_KEYS,
  extra: (value: Record<string, unknown>) => boolean = () => true,
): boolean {
  return (
    hasOnlyKeys(value, keys) &&
    isString(value.signalId) &&
    isString(value.subject) &&
    (value.at === undefined || isString(value.at)) &&
    extra(value)
  );
}

const isMissionOrNull = orNull(
  (value) =>
    hasOnlyKeys(value, MISSION_KEYS) && isString(value.signalId) && isString(value.subject) && isString(value.body),
);
const isFailureOrNull = orNull(
  (value) => hasOnlyKeys(value, FAILURE_KEYS) && isString(value.reason) && isString(value.state),
);
/** signalSeenSchema.nullable()'s quick check. */
export const isSignalSeenOrNull = orNull((value) => isWellFormedSignalSeen(value));

/**
 * The quick check of commonContext's fields of a context (its keys are its archetype's check's): each
 * archetype's isWellFormedContext starts with it.
 */
export function isWellFormedCommonContext(context: Record<string, unknown>, workStates: readonly string[]): boolean {
  return (
    isMissionOrNull(context.mission) &&
    (context.pausedFrom === null || workStates.includes(context.pausedFrom as string)) &&
    isFailureOrNull(context.failure) &&
    isSignalSeenOrNull(context.lastDirective) &&
    isSignalSeenOrNull(context.lastQuestion) &&
    isRecordOf(context.enteredAt, isString)
  );
}
