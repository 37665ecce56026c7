import { z } from 'zod';
import { isoTimestamp, nonEmptyString } from './common.js';
import { hasOnlyKeys, isArrayOf, isCount, isNonEmptyString } from './quick-check.js';

/**
 * A team's lifecycle state on disk (`<workspace>/.fed/state/`): the snapshot envelope and the journal.
 *
 * The envelope is the single source of truth and is replaced atomically and durably as a whole. Besides
 * the xstate snapshot it carries everything that must change in the same step for exactly-once effects
 * (docs/design/invariants.md #6): the ids of the signals already applied, and the effects of the last write
 * that happen in other files — journal lines and report signals to meta — which are redone idempotently
 * after a crash (journal lines by `seq`, reports by their deterministic signal id).
 */
export const STATE_DIR = 'state';
export const ENVELOPE_FILE = 'lifecycle.json';
export const JOURNAL_FILE = 'journal.jsonl';
export const STATE_LOCK_FILE = 'lifecycle.lock';

export const journalLineSchema = z.strictObject({
  /** 1 for the first applied event of the team, +1 per event: a gap-free count. */
  seq: z.number().int().positive(),
  at: isoTimestamp,
  event: nonEmptyString,
  from: nonEmptyString,
  to: nonEmptyString,
  /** The signal the event came from, when it came from one. */
  signalId: nonEmptyString.optional(),
  /** Where the event came from: an inbox signal, `fed event`, or the registry (`fed team pause|resume`). */
  source: z.enum(['signal', 'event', 'registry']),
  /** Why a signal changed nothing (its event is not accepted in the state, or it maps to no event). */
  note: z.string().optional(),
});
export type JournalLine = z.infer<typeof journalLineSchema>;

/** A report to meta that a state change owes; its id is derived from team and seq, so re-sending is idempotent. */
export const pendingReportSchema = z.strictObject({
  signalId: z.uuid(),
  subject: nonEmptyString,
  body: z.string(),
});
export type PendingReport = z.infer<typeof pendingReportSchema>;

/** An acknowledged signal held back while the team is paused: applied (read again from its inbox) once it is not. */
export const heldSignalSchema = z.strictObject({
  id: nonEmptyString,
  /** The transport's handle of the signal in the team's inbox (file-signal-v1: its file name). */
  file: nonEmptyString,
});
export type HeldSignal = z.infer<typeof heldSignalSchema>;

/**
 * `until-ack`: `processed` keeps an id only until the signal's acknowledgment is durable, and an
 * acknowledged signal counts as taken (fed acknowledges a signal only once it is applied, held or
 * ignored). Absent (an envelope of an earlier release, whose agents could acknowledge before the actor
 * applied): `processed` is the whole history, and an acknowledged signal that is not in it is still applied.
 */
export const DEDUPE_UNTIL_ACK = 'until-ack';

export const envelopeSchema = z.strictObject({
  machineId: nonEmptyString,
  machineVersion: z.number().int().positive(),
  /** xstate persisted snapshot; validated against the machine with `resolveState` before it is used. */
  snapshot: z.record(z.string(), z.unknown()),
  /** Number of events applied so far (= the last journal line's seq). */
  seq: z.number().int().nonnegative(),
  /**
   * Ids of inbox signals whose effect is in this snapshot: the dedupe record. With `dedupe: until-ack`,
   * only those whose acknowledgment may not be durable yet (a batch or two); without it, every id ever applied.
   */
  processed: z.array(nonEmptyString),
  dedupe: z.literal(DEDUPE_UNTIL_ACK).optional(),
  /** Acknowledged signals waiting for the team to leave `paused` (omitted when none). */
  held: z.array(heldSignalSchema).optional(),
  /** Journal lines of the last write, appended after it (skipped if the journal already has their seq). */
  journalTail: z.array(journalLineSchema),
  /** Reports to meta owed by the last write (sent with their fixed id, so a re-send is a no-op). */
  pendingReports: z.array(pendingReportSchema),
  savedAt: isoTimestamp,
});
export type LifecycleEnvelope = z.infer<typeof envelopeSchema>;

// The schema's own keys and patterns (zod's). A key added to the schema is let through by these sets
// unchecked until the check below looks at it: the quick check's test fails until its envelope has the key
// (uncoveredKeys), and then compares the two on it.
const ENVELOPE_KEYS: ReadonlySet<string> = new Set(Object.keys(envelopeSchema.shape));
const JOURNAL_LINE_KEYS: ReadonlySet<string> = new Set(Object.keys(journalLineSchema.shape));
const HELD_KEYS: ReadonlySet<string> = new Set(Object.keys(heldSignalSchema.shape));
const PENDING_REPORT_KEYS: ReadonlySet<string> = new Set(Object.keys(pendingReportSchema.shape));
const JOURNAL_SOURCES: ReadonlySet<unknown> = new Set(journalLineSchema.shape.source.options);
const DATETIME_PATTERN = z.regexes.datetime({ offset: true });
const UUID_PATTERN = z.regexes.uuid();

const isTimestamp = (value: unknown): boolean => typeof value === 'string' && DATETIME_PATTERN.test(value);

function isWellFormedJournalLine(value: unknown): boolean {
  return (
    hasOnlyKeys(value, JOURNAL_LINE_KEYS) &&
    isCount(value.seq, 1) &&
    isTimestamp(value.at) &&
    isNonEmptyString(value.event) &&
    isNonEmptyString(value.from) &&
    isNonEmptyString(value.to) &&
    (value.signalId === undefined || isNonEmptyString(value.signalId)) &&
    JOURNAL_SOURCES.has(value.source) &&
    (value.note === undefined || typeof value.note === 'string')
  );
}

const isWellFormedHeld = (value: unknown): boolean =>
  hasOnlyKeys(value, HELD_KEYS) && isNonEmptyString(value.id) && isNonEmptyString(value.file);

const isWellFormedPendingReport = (value: unknown): boolean =>
  hasOnlyKeys(value, PENDING_REPORT_KEYS) &&
  typeof value.signalId === 'string' &&
  UUID_PATTERN.test(value.signalId) &&
  isNonEmptyString(value.subject) &&
  typeof value.body === 'string';

/**
 * A quick check of parsed JSON against envelopeSchema, for reading many lifecycles (`fed monitor` reads
 * every team's): zod costs ~50 µs per envelope of a few journal lines, this a fraction. It accepts only
 * what the schema accepts (the same keys, the schema's patterns), with the value the schema would give
 * (a snapshot with an own `__proto__` key, which the schema drops, is left to it); anything it does not
 * accept is judged by the schema itself, which also says what is wrong. A test compares the two on a
 * corpus of valid and broken envelopes.
 */
export function isWellFormedEnvelope(value: unknown): value is LifecycleEnvelope {
  if (!hasOnlyKeys(value, ENVELOPE_KEYS)) return false;
  const { snapshot } = value;
  return (
    isNonEmptyString(value.machineId) &&
    isCount(value.machineVersion, 1) &&
    typeof snapshot === 'object' &&
    snapshot !== null &&
    !Array.isArray(snapshot) &&
    !Object.hasOwn(snapshot, '__proto__') &&
    isCount(value.seq, 0) &&
    isArrayOf(value.processed, isNonEmptyString) &&
    (value.dedupe === undefined || value.dedupe === DEDUPE_UNTIL_ACK) &&
    (value.held === undefined || isArrayOf(value.held, isWellFormedHeld)) &&
    isArrayOf(value.journalTail, isWellFormedJournalLine) &&
    isArrayOf(value.pendingReports, isWellFormedPendingReport) &&
    isTimestamp(value.savedAt)
  );
}
