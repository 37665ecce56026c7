import { RefusedError } from '../../core/errors.js';
import type { SentFact } from '../../core/schema/delivery.js';
import type { SignalMessage } from '../../core/schema/signal.js';
import type { DeliveryFactStore } from '../../ports/delivery-fact-store.js';
import type { TransportWriteOptions } from '../../ports/signal-transport.js';
import { sha256 } from '../../infra/crypto/sha256.js';

/** What makes two sends the same signal: everything the sender chose, not the time it was sent at. */
export function signalDigest(message: Pick<SignalMessage, 'from' | 'to' | 'type' | 'subject' | 'body'>): string {
  const chosen = JSON.stringify([message.from, message.to, message.type, message.subject, message.body]);
  return sha256(chosen).toString('hex');
}

/** Who claimed a signal id: this send, or an earlier one with the same content (a retry). */
export interface IdClaim {
  outcome: 'claimed' | 'retry';
  /** When the id was first claimed: every copy of the signal is stored under this time, a retry's too. */
  firstSentAt: string;
}

/** The `sent` fact of a message: the id claim, made before the message is published. */
export function sentFactOf(message: SignalMessage, replyTo?: string): SentFact {
  return {
    id: message.id,
    timestamp: message.timestamp,
    from: message.from,
    to: message.to,
    type: message.type,
    subject: message.subject,
    digest: signalDigest(message),
    ...(replyTo === undefined ? {} : { replyTo }),
  };
}

/**
 * Claim `message.id` for this signal before any copy is published: the first claim wins (an exclusive
 * create), so two sends that reuse one id with different content cannot both be delivered, whatever their
 * subjects or recipients. A claim by the same content is a retry and passes. `describe` names where the
 * existing signal is, for the refusal.
 */
export async function claimSignalId(
  facts: DeliveryFactStore,
  message: SignalMessage,
  replyTo: string | undefined,
  describe: (existing: SentFact) => Promise<string>,
  options: TransportWriteOptions = {},
): Promise<IdClaim> {
  const claim = sentFactOf(message, replyTo);
  if (await facts.record(message.id, 'sent', claim, options))
    return { outcome: 'claimed', firstSentAt: message.timestamp };
  const existing = await facts.get(message.id, 'sent');
  if (!existing || (existing.digest === claim.digest && existing.replyTo === claim.replyTo)) {
    return { outcome: 'retry', firstSentAt: existing?.timestamp ?? message.timestamp };
  }
  const differing: string[] = (['from', 'to', 'type', 'subject'] as const).filter(
    (key) => existing[key] !== claim[key],
  );
  if (existing.replyTo !== claim.replyTo) differing.push('reply-to');
  const what = differing.length ? differing.join(', ') : 'body';
  throw new RefusedError(
    'SIGNAL_ID_REUSED',
    `signal id ${message.id} was already used for another signal (${await describe(existing)}) with a different ${what}; ` +
      'a retry must repeat the same signal — to send a new one, leave out --id',
  );
}
