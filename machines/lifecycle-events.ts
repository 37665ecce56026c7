import { z } from 'zod';
import { isoTimestamp, nonEmptyString } from './schema-primitives.js';

/**
 * Events every team lifecycle (deliverable, coding, consultant) shares, declared once so both machines and the actor
 * system agree on their payloads.
 *
 * Every event may carry `at`: the ISO time it happened. Machines never read the clock — a snapshot plus
 * an event always gives the same next snapshot, which keeps model-based tests, persisted snapshots and
 * replays deterministic (like Temporal workflow code). Whoever sends the event stamps it: the actor system
 * uses the signal's timestamp or the time `fed event` ran. An event without `at` leaves the time of the
 * state it enters unknown rather than inventing one.
 *
 * Payload objects are strict: a misspelt field from `fed event --data` is an error, not silently dropped.
 */
export const timestamped = { at: isoTimestamp.optional() };

/** Something went wrong that the team cannot recover from (docs/design/spec.md §3.1 "any state → failed"). */
export const failEvent = z.strictObject({ type: z.literal('FAIL'), reason: nonEmptyString, ...timestamped });

/** Manual pause (docs/design/spec.md §3.1 "any non-terminal state → paused"). */
export const pauseEvent = z.strictObject({ type: z.literal('PAUSE'), ...timestamped });

/** Back to exactly the state the team was paused in; the spec leaves resuming open, this is our choice. */
export const resumeEvent = z.strictObject({ type: z.literal('RESUME'), ...timestamped });

/** The signal an event came from, so the lifecycle can say which directive or question it saw. */
const signalRef = { signalId: nonEmptyString, subject: nonEmptyString };

/** The mission, from meta's first directive in the inbox (docs/design/spec.md §3.1 "mission is read from the inbox signal"). */
export const missionAssignedEvent = z.strictObject({
  type: z.literal('MISSION_ASSIGNED'),
  ...signalRef,
  body: z.string(),
  ...timestamped,
});

/** A later directive from meta: recorded, no state change (the team's agent reads the signal itself). */
export const directiveReceivedEvent = z.strictObject({
  type: z.literal('DIRECTIVE_RECEIVED'),
  ...signalRef,
  ...timestamped,
});

/**
 * A question to the team, with who asked (`from`, so the answer can go back to them). Deliverable and
 * coding teams record it without a state change; a consultant team researches it (or queues it).
 */
export const questionReceivedEvent = z.strictObject({
  type: z.literal('QUESTION_RECEIVED'),
  ...signalRef,
  from: nonEmptyString.optional(),
  ...timestamped,
});

export type FailEvent = z.infer<typeof failEvent>;
export type MissionAssignedEvent = z.infer<typeof missionAssignedEvent>;
export type SignalEvent = z.infer<typeof directiveReceivedEvent> | z.infer<typeof questionReceivedEvent>;
