import { InvalidInputError } from '../../core/errors.js';
import { toJsonText } from '../../core/json-text.js';
import type { SentSignal, TransportWriteOptions } from '../../ports/signal-transport.js';
import type { SignalParty } from '../../core/resolve-party.js';
import { activityIsStale, ACTIVITY_RESOLUTION_MS, touchLastActive } from '../registry/touch-activity.js';
import { META } from '../../core/schema/common.js';
import { zodProblemText } from '../../core/schema/problems.js';
import type { Registry } from '../../core/schema/registry.js';
import {
  isWellFormedSignal,
  MAX_SIGNAL_BYTES,
  SIGNAL_PROTOCOL,
  signalMessageSchema,
  type SignalMessage,
} from '../../core/schema/signal.js';
import { recordSend } from '../delivery/record-send.js';
import type { IdClaim } from '../delivery/sent-fact.js';
import { CONCURRENT_SEND_MS } from '../../core/schema/delivery.js';
import { randomUuid } from '../../infra/crypto/random.js';
import { recordSignalSent } from '../../infra/telemetry/fed-metrics.js';
import { assertActsAsCaller, resolveParty } from '../../core/resolve-party.js';
import type { Federation } from '../context.js';

export interface SendSignalRequest {
  /** Recipient: a team id (or domain) or `meta`. */
  to: string;
  /** `directive`, `question`, `report` or `alert`; anything else is refused. */
  type: string;
  subject: string;
  /** Default: empty. */
  body?: string;
  /** Sender: a team id (or domain) or `meta`. Default: the caller, else `meta`. */
  from?: string;
  /** A UUID chosen by the caller, which makes a retried send idempotent. Default: a new UUID. */
  id?: string;
  /** The id of the signal this one answers; that signal's delivery state becomes `answered`. */
  replyTo?: string;
}

export interface SendSignalOptions extends TransportWriteOptions {
  now?: () => Date;
  /** The registry as the caller just read it (the apply path shares one read among its effects); read here when not given. */
  registry?: Registry;
  /**
   * Who asks for the send, when the edge knows it (the CLI: the team whose workspace or `$FED_TEAM` it runs
   * with): a team sends only as itself (SENDER_NOT_CALLER otherwise). Undefined: meta, which sends as any party.
   */
  caller?: string;
  /** The sender's `lastActive` is refreshed when older than this (default one minute). */
  activityResolutionMs?: number;
}

export interface SendSignalResult extends SentSignal {
  /** Non-fatal problems after delivery (the signal did arrive), e.g. `lastActive` could not be refreshed. */
  warnings: string[];
}

/**
 * Send a signal (docs/design/spec.md §4.3): build and validate a SignalMessage, then hand it to the federation's signal
 * transport, which delivers it to the recipient's inbox and records a copy in the sender's outbox — each
 * complete when it appears, never replacing another signal (file-signal-v1: temp file, fsync, hard link).
 * Everything is checked before anything is written, so a refused send leaves no trace.
 */
export async function sendSignal(
  fed: Federation,
  request: SendSignalRequest,
  options: SendSignalOptions = {},
): Promise<SendSignalResult> {
  const now = options.now?.() ?? fed.now();
  // Stamped when asked, so sends started in one order are applied in it (see stampTime).
  const timestamp = stampTime(now);
  const { backend } = fed;
  const parties = (registry: Registry) => {
    const recipient = resolveParty(registry, request.to, { role: 'recipient (--to)' });
    const sender = resolveParty(registry, request.from ?? options.caller ?? META, { role: 'sender (--from)' });
    assertActsAsCaller(registry, options.caller, sender.id, 'sender (--from)');
    return { recipient, sender };
  };
  // A long-running process checks against its watched copy of the registry, without a read (docs/jetstream.md).
  const { registry, checked } = options.registry
    ? { registry: options.registry, checked: parties(options.registry) }
    : await fed.checkRegistry(parties);
  const { recipient, sender } = checked;
  const built = buildMessage(request, sender.id, recipient.id, timestamp);
  const durable = options.durable ?? true;
  // What the transport would refuse (a recipient's missing workspace, a linked box) is refused before the id is
  // claimed: a refused send leaves no claim behind (src/ports/signal-transport.ts, prepareSend).
  const send = await backend.signals.prepareSend({ from: sender, to: recipient }, { durable });
  // A retry passes when the id was first sent, so the transport looks for that send's copies first.
  const publish = (message: SignalMessage, claimed: boolean, firstSentAt?: string) =>
    send(message, {
      durable,
      idempotent: request.id !== undefined,
      claimed,
      ...(firstSentAt !== undefined && { firstSentAt }),
    });
  // The delivery facts (#16): the id claimed and the reply target checked before anything is published —
  // or, for an id made here, which no other send can hold, while it is published where that saves a round trip.
  const records = await recordSend(
    backend,
    registry,
    built,
    request.replyTo,
    { durable },
    request.id === undefined ? () => publish(built, true) : undefined,
  );
  if (records.archived) return { ...records.archived, warnings: [] };
  const sent =
    records.published ??
    (await publish(
      retryMessage(built, records.claim, now),
      records.claim.outcome === 'claimed',
      records.claim.outcome === 'retry' ? records.claim.firstSentAt : undefined,
    ));
  await records.delivered(sent.message);
  // A retry that only completed a missing copy sent nothing new.
  if (sent.delivered) recordSignalSent(sender.id, sent.message.type);
  return { ...sent, warnings: [...records.warnings, ...(await recordActivity(fed, sender, now, options))] };
}

/** A retry concurrent with the first send is stored under its time, where the first send looks. */
function retryMessage(built: SignalMessage, claim: IdClaim, now: Date): SignalMessage {
  const concurrent = claim.outcome === 'retry' && now.getTime() - Date.parse(claim.firstSentAt) < CONCURRENT_SEND_MS;
  return concurrent ? { ...built, timestamp: claim.firstSentAt } : built;
}

/** The clock reading and the stamp of this process's last send (see stampTime). */
let lastSend = { read: Number.NEGATIVE_INFINITY, stamped: Number.NEGATIVE_INFINITY };

/**
 * The time a send is stamped with: now, or a millisecond after this process's previous stamp while the
 * clock has not moved past it. An inbox is applied in timestamp order, then by file name (the subject):
 * two sends within one millisecond would otherwise be applied in the order of their subjects. A clock
 * set back (a test's, or the system's) starts over from its reading.
 */
function stampTime(now: Date): string {
  const read = now.getTime();
  const stamped = read >= lastSend.read && read <= lastSend.stamped ? lastSend.stamped + 1 : read;
  lastSend = { read, stamped };
  return new Date(stamped).toISOString();
}

/** The validated message, within the size limit of a signal. */
function buildMessage(request: SendSignalRequest, from: string, to: string, timestamp: string): SignalMessage {
  const candidate = {
    // Lower case, so a retry that spells the same UUID in capitals is still the same signal.
    id: request.id?.toLowerCase() ?? randomUuid(),
    timestamp,
    from,
    to,
    type: request.type,
    subject: request.subject,
    body: request.body ?? '',
    protocol: SIGNAL_PROTOCOL,
  };
  // The quick check passes a well-formed message without zod (~20 µs of a send, before its first flush);
  // the schema judges anything else, and names what is wrong.
  const message = isWellFormedSignal(candidate) ? candidate : parsedOrRefused(candidate);
  const text = toJsonText(message);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_SIGNAL_BYTES) {
    throw new InvalidInputError(
      `cannot send the signal: it would be ${bytes} bytes, over the ${MAX_SIGNAL_BYTES}-byte limit of a signal; ` +
        'write large content to a file in the workspace and name that file in the body',
    );
  }
  return message;
}

function parsedOrRefused(candidate: unknown): SignalMessage {
  const parsed = signalMessageSchema.safeParse(candidate, { reportInput: true });
  if (!parsed.success) throw new InvalidInputError(`cannot send the signal: ${zodProblemText(parsed.error)}`);
  return parsed.data;
}

/**
 * Sending counts as activity (docs/design/spec.md §2.4 `lastActive`), recorded at most once a minute per team
 * (touchLastActive). The signal is already delivered here, so a failure is a warning: reporting the send as
 * failed would make callers retry and deliver it twice.
 */
async function recordActivity(
  fed: Federation,
  sender: SignalParty,
  now: Date,
  options: SendSignalOptions,
): Promise<string[]> {
  const resolutionMs = options.activityResolutionMs ?? ACTIVITY_RESOLUTION_MS;
  if (!sender.entry || !activityIsStale(sender.entry, now, resolutionMs)) return [];
  try {
    await touchLastActive(fed, sender.id, {
      durable: options.durable ?? true,
      now: () => now,
      resolutionMs,
      entry: sender.entry,
    });
    return [];
  } catch (error) {
    return [
      `the signal was delivered, but lastActive of "${sender.id}" could not be refreshed: ${(error as Error).message}`,
    ];
  }
}
