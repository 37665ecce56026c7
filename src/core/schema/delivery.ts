import { z } from 'zod';
import { isoTimestamp, nonEmptyString } from './common.js';
import { signalPartySchema, signalTypeSchema } from './signal.js';

/**
 * Delivery facts: what happened to a signal after it was sent, kept BESIDE the signal so its file stays
 * exactly the SignalMessage of docs/design/spec.md §2.1. They live in `<root>/.fed/delivery/`, one small file per
 * signal and fact, named `<signal-id>.<fact>.json`. Each is created once (exclusively) and never
 * rewritten, so concurrent writers agree on the first and nothing needs a lock. The ack stays where the
 * spec puts it (`<signal-file>.json.ack` in the inbox).
 */
export const DELIVERY_DIR = 'delivery';

export const DELIVERY_FACTS = ['sent', 'read', 'answered', 'escalated', 'undeliverable'] as const;
export type DeliveryFactName = (typeof DELIVERY_FACTS)[number];

/**
 * `<id>.sent.json`: the signal as its sender sent it, claimed before the copies are published. It makes
 * an id single-use (a different signal under a used id is refused), finds a signal by id without
 * scanning boxes, and carries what the spec's fields cannot: which signal this one answers.
 */
export const sentFactSchema = z.strictObject({
  id: z.uuid(),
  timestamp: isoTimestamp,
  from: signalPartySchema,
  to: signalPartySchema,
  type: signalTypeSchema,
  subject: nonEmptyString,
  /** sha256 of from, to, type, subject and body: a retry must carry the same. */
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  /** The id of the signal this one answers (`fed signal send --reply-to`). */
  replyTo: z.uuid().optional(),
});
export type SentFact = z.infer<typeof sentFactSchema>;

/** `<id>.read.json`: the recipient took the signal (listed or watched its own inbox) before acknowledging it. */
export const readFactSchema = z.strictObject({
  readAt: isoTimestamp,
  by: signalPartySchema,
});
export type ReadFact = z.infer<typeof readFactSchema>;

/** `<id>.answered.json`: the first reply to the signal; later replies are found by their own `replyTo`. */
export const answeredFactSchema = z.strictObject({
  answeredAt: isoTimestamp,
  replyId: z.uuid(),
  from: signalPartySchema,
});
export type AnsweredFact = z.infer<typeof answeredFactSchema>;

/** `<id>.escalated.json`: the monitor told meta the signal is overdue — once, whatever the number of cycles. */
export const escalatedFactSchema = z.strictObject({
  escalatedAt: isoTimestamp,
  /** When the signal became overdue (its timestamp plus the deadline of its type). */
  dueAt: isoTimestamp,
  alertId: z.uuid(),
});
export type EscalatedFact = z.infer<typeof escalatedFactSchema>;

/** `<id>.undeliverable.json`: the recipient was archived (or removed) before taking the signal; the sender was told. */
export const undeliverableFactSchema = z.strictObject({
  reportedAt: isoTimestamp,
  reason: nonEmptyString,
  /** The non-delivery alert sent back; absent when the sender cannot receive one either (itself archived or removed). */
  alertId: z.uuid().optional(),
});
export type UndeliverableFact = z.infer<typeof undeliverableFactSchema>;

export interface DeliveryFacts {
  sent?: SentFact;
  read?: ReadFact;
  answered?: AnsweredFact;
  escalated?: EscalatedFact;
  undeliverable?: UndeliverableFact;
}

export const deliveryFactSchemas = {
  sent: sentFactSchema,
  read: readFactSchema,
  answered: answeredFactSchema,
  escalated: escalatedFactSchema,
  undeliverable: undeliverableFactSchema,
} as const satisfies Record<DeliveryFactName, z.ZodType>;

/**
 * Where a signal is, derived from the facts (never stored): `delivered` (in the recipient's inbox),
 * `read`, `acknowledged` (its ack file), `answered` (a reply names it), `expired` (its deadline passed
 * without what it asked for), `undeliverable` (its recipient is archived or removed).
 */
export const DELIVERY_STATES = ['delivered', 'read', 'acknowledged', 'answered', 'expired', 'undeliverable'] as const;
export const deliveryStateSchema = z.enum(DELIVERY_STATES);
export type DeliveryState = z.infer<typeof deliveryStateSchema>;

/**
 * How long after an id's claim its sends count as concurrent. A retry within it is stored under the
 * claim's time, where the claiming send, if it is still running, looks for an earlier copy (its own
 * second's names); a claiming send that reaches its copies later than this — stalled, or kept waiting by
 * the send lock — looks at every signal of its subject, as a retry does. A later retry keeps its own time,
 * so a first delivery made late is not already overdue when it arrives.
 */
export const CONCURRENT_SEND_MS = 30_000;
