import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidInputError, RefusedError } from '../../errors.js';
import type { WriteOptions } from '../../fs/atomic-write.js';
import type { Registry } from '../../schema/registry.js';
import { signalMessageSchema, type SignalMessage } from '../../schema/signal.js';
import { archiveDirectoryOf } from '../archive/box-archive.js';
import { resolveSignalWorkspace } from '../resolve-workspace.js';
import { FileDeliveryFactStore } from './delivery-fact-store.js';
import { findSignalById } from './find-signal.js';
import { claimSignalId } from './sent-fact.js';

export interface SendRecords {
  /**
   * A retry of a signal that was delivered and has since been archived: where it is. Nothing is to be
   * delivered then — the live boxes no longer show it, but it was sent.
   */
  archived: { message: SignalMessage; file: string; inboxPath: string; outboxPath: string; delivered: false } | undefined;
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
  const claim = claimSignalId(facts, message, answers, (existing) => {
    const found = findSignalById(root, registry, existing.id, existing);
    return `${existing.type} "${existing.subject}" from ${existing.from} to ${existing.to}, ${found ? found.entry.path : join(facts.dir, `${existing.id}.sent.json`)}`;
  });
  return {
    archived: claim === 'retry' ? archivedCopy(root, registry, facts, message) : undefined,
    delivered(sent) {
      if (answers === undefined) return;
      facts.record(answers, 'answered', { answeredAt: sent.timestamp, replyId: sent.id, from: sent.from });
    },
  };
}

/** The archived inbox copy of a signal sent before, and its outbox copy (archived too, or still live). */
function archivedCopy(root: string, registry: Registry, facts: FileDeliveryFactStore, message: SignalMessage): SendRecords['archived'] {
  const found = findSignalById(root, registry, message.id, facts.get(message.id, 'sent'));
  if (!found?.archived || found.box !== 'inbox') return undefined;
  const { acknowledged: _a, acknowledged_at: _at, ...sent } = found.entry.message;
  const outbox = resolveSignalWorkspace(root, sent.from, { allowArchived: true, registry }).outbox;
  const live = join(outbox, found.entry.file);
  const outboxPath = existsSync(live) ? live : join(archiveDirectoryOf(outbox), found.entry.file);
  return { message: sent, file: found.entry.file, inboxPath: found.entry.path, outboxPath, delivered: false };
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
