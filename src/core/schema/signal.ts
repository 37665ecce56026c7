import { z } from 'zod';
import { isoTimestamp, META, nonEmptyString, TEAM_ID_PATTERN } from './common.js';
import { describeValue, UUID_EXPECTED } from './problems.js';

/** Signal transport version carried in every signal's `protocol` field (docs/design/spec.md §9). */
/** The two boxes of a party: signals sent to it, and the record copies of those it sent. */
export type SignalBox = 'inbox' | 'outbox';
export const SIGNAL_BOXES: readonly SignalBox[] = ['inbox', 'outbox'];

export const SIGNAL_PROTOCOL = 'file-signal-v1';

export const SIGNAL_TYPES = ['directive', 'question', 'report', 'alert'] as const;
export const signalTypeSchema = z.enum(SIGNAL_TYPES);
export type SignalType = z.infer<typeof signalTypeSchema>;

/**
 * A signal file is read into memory whole, so its size is bounded; a bigger file is reported as invalid
 * rather than read, and `send` refuses a body that would not fit. Large content belongs in a workspace
 * file that the signal names.
 */
export const MAX_SIGNAL_BYTES = 1024 * 1024;

/**
 * How long a box file that is empty or cut-off JSON is given to be finished by a writer that writes in
 * place (another tool's): until it has been still this long it is read again, not judged.
 */
export const SETTLE_MS = 2_000;

/** A team id or `meta` (`meta` is itself a valid slug, reserved so no team can take it). */
export const signalPartySchema = z
  .string({ error: (issue) => `expected a team id or "${META}", got ${describeValue(issue.input)}` })
  .max(64, { error: 'expected a team id of at most 64 characters' })
  .regex(TEAM_ID_PATTERN, {
    error: (issue) => `expected a team id (like "docs-team") or "${META}", got ${describeValue(issue.input)}`,
  });

/**
 * Signal subjects name files, so one made only of whitespace is as good as none. An empty one is refused
 * once: its check aborts, so the whitespace check does not say it again.
 */
const subjectSchema = z
  .string({ error: (issue) => `expected a subject, got ${describeValue(issue.input)}` })
  .min(1, { error: 'expected a subject with at least one non-space character, got an empty string', abort: true })
  .refine((subject) => subject.trim() !== '', {
    error: 'expected a subject with at least one non-space character',
  });

/**
 * A subject as a sender writes it through a schema a client also checks (fed_send's arguments): one line
 * with a non-space character, said as a JSON Schema pattern rather than a refine, which the listed schema
 * would drop. Files keep subjectSchema: a signal written before is still read.
 */
export const oneLineSubjectSchema = z
  .string({ error: (issue) => `expected a subject, got ${describeValue(issue.input)}` })
  .regex(/^[^\r\n\u2028\u2029]*\S[^\r\n\u2028\u2029]*$/, {
    error: (issue) => `expected one line with at least one non-space character, got ${describeValue(issue.input)}`,
  });

/**
 * SignalMessage (docs/design/spec.md §2.1): exactly these keys, nothing else. `acknowledged`/`acknowledged_at` are
 * optional in the file; fed never writes them there — the ack file beside the signal is the record.
 */
export const signalMessageSchema = z
  .strictObject({
    id: z.uuid({ error: (issue) => `${UUID_EXPECTED}, got ${describeValue(issue.input)}` }),
    timestamp: isoTimestamp,
    from: signalPartySchema,
    to: signalPartySchema,
    type: signalTypeSchema,
    subject: subjectSchema,
    body: z.string(),
    protocol: z.literal(SIGNAL_PROTOCOL, {
      error: (issue) => `expected "${SIGNAL_PROTOCOL}", got ${describeValue(issue.input)}`,
    }),
    acknowledged: z.boolean().optional(),
    acknowledged_at: isoTimestamp.optional(),
  })
  .meta({
    title: 'SignalMessage',
    description: `A ${SIGNAL_PROTOCOL} signal: the content of <workspace>/.fed/signals/{inbox,outbox}/<timestamp>-<type>-<subject>.json`,
  });
export type SignalMessage = z.infer<typeof signalMessageSchema>;

const SIGNAL_KEYS = new Set(Object.keys(signalMessageSchema.shape));
// The schema's own patterns (zod's), so the quick check below can only be stricter than it.
const UUID_PATTERN = z.regexes.uuid();
const DATETIME_PATTERN = z.regexes.datetime({ offset: true });
const SIGNAL_TYPE_SET: ReadonlySet<unknown> = new Set(SIGNAL_TYPES);

const isParty = (value: unknown): boolean =>
  typeof value === 'string' && value.length <= 64 && TEAM_ID_PATTERN.test(value);
const isTimestamp = (value: unknown): boolean => typeof value === 'string' && DATETIME_PATTERN.test(value);

/**
 * A quick check of parsed JSON against signalMessageSchema, for reading large boxes: zod costs ~25 µs per
 * signal, this a fraction. It accepts only what the schema accepts (same keys, the schema's patterns);
 * anything it does not accept is judged by the schema itself, which also says what is wrong. A test
 * compares the two on a corpus of valid and broken signals.
 */
export function isWellFormedSignal(value: unknown): value is SignalMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) if (!SIGNAL_KEYS.has(key)) return false;
  return (
    typeof v.id === 'string' &&
    UUID_PATTERN.test(v.id) &&
    isTimestamp(v.timestamp) &&
    isParty(v.from) &&
    isParty(v.to) &&
    SIGNAL_TYPE_SET.has(v.type) &&
    typeof v.subject === 'string' &&
    v.subject.trim() !== '' &&
    typeof v.body === 'string' &&
    v.protocol === SIGNAL_PROTOCOL &&
    (v.acknowledged === undefined || typeof v.acknowledged === 'boolean') &&
    (v.acknowledged_at === undefined || isTimestamp(v.acknowledged_at))
  );
}

/** Acknowledgment file content (docs/design/spec.md §2.2), stored as `<signal-file>.json.ack` beside the signal. */
export const signalAckSchema = z
  .strictObject({
    acknowledged: z.boolean(),
    acknowledged_at: isoTimestamp,
  })
  .meta({
    title: 'SignalAcknowledgment',
    description: `Content of <signal-file>.json.ack, written by the recipient when it has read the signal (${SIGNAL_PROTOCOL})`,
  });
export type SignalAck = z.infer<typeof signalAckSchema>;

/** The quick check of signalAckSchema, as isWellFormedSignal is of the signal's: only stricter than the schema. */
export function isWellFormedAck(value: unknown): value is SignalAck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  const keys = Object.keys(v);
  return keys.length === 2 && typeof v.acknowledged === 'boolean' && isTimestamp(v.acknowledged_at);
}

/** `<workspace>/.fed/signals/quarantine/<name>.reason.json`: why a file was taken out of a signal box. */
export const quarantineReasonSchema = z.strictObject({
  file: nonEmptyString,
  originalPath: nonEmptyString,
  quarantinedAt: isoTimestamp,
  reason: nonEmptyString,
});
export type QuarantineReason = z.infer<typeof quarantineReasonSchema>;
