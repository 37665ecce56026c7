import { InvalidInputError, RefusedError } from '../../core/errors.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { SentSignal, TransportWriteOptions } from '../../ports/signal-transport.js';
import type { Registry } from '../../core/schema/registry.js';
import { signalMessageSchema, type SignalMessage } from '../../core/schema/signal.js';
import { findInBox, findSignalById } from './find-signal.js';
import { claimSignalId, type IdClaim } from './sent-fact.js';

export interface SendRecords {
  /** Whether this send claimed the id, and when it was first claimed. */
  claim: IdClaim;
  /**
   * A retry of a signal that was delivered and has since been archived: where it is. Nothing is to be
   * delivered then — the live boxes no longer show it, but it was sent.
   */
  archived:
    { message: SignalMessage; file: string; inboxPath: string; outboxPath: string; delivered: false } | undefined;
  /** The signal, when it was published with the claim (`recordSend`'s `fresh`); else the caller publishes it. */
  published: SentSignal | undefined;
  /** Non-fatal problems: the signal was published with a claim that failed. */
  warnings: string[];
  /** Record what the delivered signal means for others (the answer it is); call after its inbox copy is published. */
  delivered(message: SignalMessage): Promise<void>;
}

/**
 * The delivery facts of a send, around the publishing of its copies: before, the reply target is checked
 * and the id claimed (refusing an id reused for another signal, so nothing is written then); after, the
 * signal it answers is marked answered. A crash in between leaves the claim, which a retry with the same
 * `--id` passes and completes. Facts and signals are the backend's, so a reused id is caught on every
 * machine of a federation that shares one.
 *
 * `fresh`: the publish of a message whose id this send made. No other send knows that id, so its claim
 * cannot refuse it; where the store allows it (`claimsAlongsidePublish`: JetStream, where waiting for the
 * claim's answer costs a round trip, and files, where it costs two flushes to disk) the publish starts with
 * the claim, once the reply target is checked. A claim that then fails — or that a crash leaves unwritten
 * while a copy is on disk — leaves a delivered signal without its sent fact: a warning, not a failure (the
 * caller would send it again as new); it is still found by id, by a search of the boxes, like a signal an
 * older fed sent. The send returns once both are durable.
 */
export async function recordSend(
  backend: FederationBackend,
  registry: Registry,
  message: SignalMessage,
  replyTo: string | undefined,
  options: TransportWriteOptions,
  fresh?: () => Promise<SentSignal>,
): Promise<SendRecords> {
  const facts = backend.delivery;
  const answers = replyTo === undefined ? undefined : await replyTarget(backend, registry, replyTo, message);
  // A refusal the caller can fix comes before anything is published, alongside or not.
  const alongside = fresh && facts.claimsAlongsidePublish;
  if (alongside) facts.checkRecord?.(options);
  // Alongside, the publish starts first and the claim right after it: on files, the copies' flushes are
  // under way before the claim's file is made — a durable send 7–12 % faster than the claim first
  // (docs/operations.md, the send path).
  const publishing = alongside ? fresh() : undefined;
  const claiming = claimSignalId(
    facts,
    message,
    answers,
    async (existing) => {
      const found = await findSignalById(backend, registry, existing.id, existing);
      return `${existing.type} "${existing.subject}" from ${existing.from} to ${existing.to}, ${found ? found.entry.path : `recorded in ${facts.location}`}`;
    },
    options,
  );
  const delivered = async (sent: SignalMessage): Promise<void> => {
    if (answers === undefined) return;
    await facts.record(answers, 'answered', { answeredAt: sent.timestamp, replyId: sent.id, from: sent.from }, options);
  };
  if (publishing) {
    const [claimed, published] = await Promise.allSettled([claiming, publishing]);
    if (published.status === 'rejected') throw published.reason;
    const failed = claimed.status === 'rejected' ? ((claimed.reason as Error)?.message ?? String(claimed.reason)) : '';
    return {
      claim: claimed.status === 'fulfilled' ? claimed.value : { outcome: 'claimed', firstSentAt: message.timestamp },
      archived: undefined,
      published: published.value,
      warnings: failed
        ? [`signal ${message.id} was delivered, but its id could not be claimed in ${facts.location}: ${failed}`]
        : [],
      delivered,
    };
  }
  const claim = await claiming;
  return {
    claim,
    archived: claim.outcome === 'retry' ? await archivedCopy(backend, registry, message) : undefined,
    published: undefined,
    warnings: [],
    delivered,
  };
}

/** The archived inbox copy of a signal sent before, and its outbox copy (archived too, or still live). */
async function archivedCopy(
  backend: FederationBackend,
  registry: Registry,
  message: SignalMessage,
): Promise<SendRecords['archived']> {
  const sent = await backend.delivery.get(message.id, 'sent');
  const found = await findSignalById(backend, registry, message.id, sent);
  if (!found?.archived || found.box !== 'inbox') return undefined;
  const { acknowledged: _a, acknowledged_at: _at, ...original } = found.entry.message;
  const outbox = await findInBox(backend, registry, original.from, 'outbox', original.id, sent);
  const outboxPath = outbox?.entry.path ?? found.entry.path;
  return { message: original, file: found.entry.file, inboxPath: found.entry.path, outboxPath, delivered: false };
}

/**
 * The id `--reply-to` names: a UUID of a signal fed can find, other than the reply itself, sent to the
 * reply's sender — only the party a signal was sent to answers it (a question answered by anyone else
 * would stop being overdue for the one asked).
 */
async function replyTarget(
  backend: FederationBackend,
  registry: Registry,
  given: string,
  reply: SignalMessage,
): Promise<string> {
  if (!signalMessageSchema.shape.id.safeParse(given).success) {
    throw new InvalidInputError(
      `--reply-to: expected the id (a UUID) of the signal this one answers, got "${given}"; find it with: fed signal list`,
    );
  }
  const id = given.toLowerCase();
  if (id === reply.id) throw new InvalidInputError(`--reply-to: a signal cannot answer itself (${id})`);
  const sent = await backend.delivery.get(id, 'sent');
  const recipient = sent?.to ?? (await findSignalById(backend, registry, id, undefined))?.entry.message.to;
  if (recipient === undefined)
    throw new RefusedError(
      'UNKNOWN_SIGNAL',
      `--reply-to: no signal with id ${id} in this federation (live or archived); find it with: fed signal list --all`,
    );
  if (recipient !== reply.from)
    throw new RefusedError(
      'REPLY_NOT_FROM_RECIPIENT',
      `--reply-to: signal ${id} was sent to "${recipient}", so only "${recipient}" can answer it, not "${reply.from}"; send this one without --reply-to, or from "${recipient}"`,
    );
  return id;
}
