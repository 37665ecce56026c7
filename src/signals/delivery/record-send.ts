import { join } from 'node:path';
import { InvalidInputError, RefusedError } from '../../errors.js';
import type { WriteOptions } from '../../fs/atomic-write.js';
import type { Registry } from '../../schema/registry.js';
import { signalMessageSchema, type SignalMessage } from '../../schema/signal.js';
import { FileDeliveryFactStore } from './delivery-fact-store.js';
import { findSignalById } from './find-signal.js';
import { claimSignalId } from './sent-fact.js';

export interface SendRecords {
  /** Record what the delivered signal means for others (the answer it is); call after its inbox copy is published. */
  delivered(message: SignalMessage): void;
}

/**
 * The delivery facts of a send, around the publishing of its copies: before, the reply target is checked
 * and the id claimed (refusing an id reused for another signal, so nothing is written then); after, the
 * signal it answers is marked answered. A crash in between leaves the claim, which a retry with the same
 * `--id` passes and completes.
 */
export function recordSend(root: string, registry: Registry, message: SignalMessage, replyTo: string | undefined, options: WriteOptions): SendRecords {
  const facts = new FileDeliveryFactStore(root, options);
  const answers = replyTo === undefined ? undefined : replyTarget(root, registry, facts, replyTo, message.id);
  claimSignalId(facts, message, answers, (existing) => {
    const found = findSignalById(root, registry, existing.id, existing);
    return `${existing.type} "${existing.subject}" from ${existing.from} to ${existing.to}, ${found ? found.entry.path : join(facts.dir, `${existing.id}.sent.json`)}`;
  });
  return {
    delivered(sent) {
      if (answers === undefined) return;
      facts.record(answers, 'answered', { answeredAt: sent.timestamp, replyId: sent.id, from: sent.from });
    },
  };
}

/** The id `--reply-to` names: a UUID of a signal fed can find, other than the reply itself. */
function replyTarget(root: string, registry: Registry, facts: FileDeliveryFactStore, given: string, replyId: string): string {
  if (!signalMessageSchema.shape.id.safeParse(given).success) {
    throw new InvalidInputError(`--reply-to: expected the id (a UUID) of the signal this one answers, got "${given}"; find it with: fed signal list`);
  }
  const id = given.toLowerCase();
  if (id === replyId) throw new InvalidInputError(`--reply-to: a signal cannot answer itself (${id})`);
  if (facts.has(id, 'sent') || findSignalById(root, registry, id, undefined)) return id;
  throw new RefusedError('UNKNOWN_SIGNAL', `--reply-to: no signal with id ${id} in this federation (live or archived); find it with: fed signal list --all`);
}
