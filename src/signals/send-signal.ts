import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { v4 as uuidv4 } from 'uuid';
import { FedError, InvalidInputError, RefusedError } from '../errors.js';
import { withLock } from '../fs/lock.js';
import { publishFileNoClobber, suffixedName, type PublishOptions, type WriteOptions } from '../fs/atomic-write.js';
import { ensureDirectory } from '../fs/ensure-directory.js';
import { toJsonText } from '../fs/json-text.js';
import { readRegistry } from '../registry/registry-file.js';
import { activityIsStale, ACTIVITY_RESOLUTION_MS, touchLastActive } from '../registry/touch-activity.js';
import { META } from '../schema/common.js';
import { zodProblemText } from '../schema/problems.js';
import { recordSignalSent } from '../telemetry/fed-metrics.js';
import { MAX_SIGNAL_BYTES, SIGNAL_PROTOCOL, signalMessageSchema, type SignalMessage } from '../schema/signal.js';
import { judgeSignal, readBoxFile, type BoxExpectation } from './parse-signal-file.js';
import { resolveSignalWorkspace, type SignalWorkspace } from './resolve-workspace.js';
import { sameSubjectPattern, signalFileName } from './signal-file-name.js';

export interface SendSignalRequest {
  /** Recipient: a team id (or domain) or `meta`. */
  to: string;
  /** `directive`, `question`, `report` or `alert`; anything else is refused. */
  type: string;
  subject: string;
  /** Default: empty. */
  body?: string;
  /** Sender: a team id (or domain) or `meta` (default). */
  from?: string;
  /** A UUID chosen by the caller, which makes a retried send idempotent. Default: a new UUID. */
  id?: string;
}

export interface SendSignalOptions extends WriteOptions {
  now?: () => Date;
  /** The sender's `lastActive` is refreshed when older than this (default one minute). */
  activityResolutionMs?: number;
}

export interface SendSignalResult {
  message: SignalMessage;
  /** File name in the recipient's inbox. */
  file: string;
  inboxPath: string;
  outboxPath: string;
  /** False when an earlier send with the same `id` had already delivered the signal: nothing new reached the inbox. */
  delivered: boolean;
  /** Non-fatal problems after delivery (the signal did arrive), e.g. `lastActive` could not be refreshed. */
  warnings: string[];
}

interface StoredCopy {
  file: string;
  message: SignalMessage;
}

/**
 * Send a signal (spec §4.3): build a SignalMessage, publish it into the recipient's inbox, then a copy
 * into the sender's outbox. Each copy is written complete to a temp file, fsynced and hard-linked into
 * place (src/fs), so a crash leaves either no file or the whole file, and a same-second, same-subject
 * signal gets a suffixed name instead of replacing another. Everything is checked before anything is
 * written, so a refused send leaves no trace.
 */
export async function sendSignal(root: string, request: SendSignalRequest, options: SendSignalOptions = {}): Promise<SendSignalResult> {
  const now = options.now?.() ?? new Date();
  const registry = readRegistry(root);
  const recipient = resolveSignalWorkspace(root, request.to, { role: 'recipient (--to)', registry });
  const sender = resolveSignalWorkspace(root, request.from ?? META, { role: 'sender (--from)', registry });
  const fresh = buildMessage(request, sender.id, recipient.id, now);
  const sent = await deliverSignal(recipient, sender, fresh, request.id !== undefined, { durable: options.durable ?? true });
  // A retry that only completed a missing copy sent nothing new.
  if (sent.delivered) recordSignalSent(sender.id, sent.message.type);
  return { ...sent, warnings: await recordActivity(root, sender, now, options) };
}

/**
 * The file-signal-v1 delivery of a validated message (`text` is its file content): the inbox copy, then
 * the outbox copy. `byId`: the caller chose the id, so a retry completes what is missing instead of
 * delivering again.
 */
export async function deliverSignal(
  recipient: SignalWorkspace,
  sender: SignalWorkspace,
  fresh: { message: SignalMessage; text: string },
  byId: boolean,
  writeOptions: WriteOptions,
): Promise<Omit<SendSignalResult, 'warnings'>> {
  const deliver = () => deliverCopies(recipient, sender, fresh, byId, writeOptions);
  // Retries with one id may run at once (a caller that timed out and retried while the first still
  // runs): under a lock per recipient and id, each finds the copies the one before it wrote.
  return byId ? withLock(sendLockPath(recipient, fresh.message.id), deliver, { timeoutMs: 60_000 }) : deliver();
}

/** `<recipient workspace>/.fed/signals/.send-<id>.lock`: beside the boxes, never read as a signal. */
function sendLockPath(recipient: SignalWorkspace, id: string): string {
  const dir = dirname(recipient.inbox);
  ensureDirectory(dir);
  return join(dir, `.send-${id}.lock`);
}

/**
 * Publish the inbox copy, then the outbox copy. A retry (`byId`) first looks for copies already there and
 * completes whatever is missing, with the original message. When the outbox copy fails after the signal
 * reached the inbox, the error says it was delivered and gives the id, so nobody sends it again as new.
 */
function deliverCopies(
  recipient: SignalWorkspace,
  sender: SignalWorkspace,
  fresh: { message: SignalMessage; text: string },
  byId: boolean,
  writeOptions: WriteOptions,
): Omit<SendSignalResult, 'warnings'> {
  const inInbox = byId ? findSentCopy(recipient.inbox, { owner: recipient.id, box: 'inbox' }, fresh.message) : undefined;
  const inOutbox = byId ? findSentCopy(sender.outbox, { owner: sender.id, box: 'outbox' }, fresh.message) : undefined;
  const stored = inInbox?.message ?? inOutbox?.message;
  const message = stored ?? fresh.message;
  const text = stored ? toJsonText(stored) : fresh.text;

  const file = inInbox?.file ?? publishSignalFile(recipient.inbox, inOutbox?.file ?? signalFileName(message), text, writeOptions);
  let outboxFile: string;
  try {
    outboxFile = inOutbox?.file ?? publishSignalFile(sender.outbox, file, text, writeOptions);
  } catch (error) {
    throw new SignalOutboxCopyError(message.id, join(recipient.inbox, file), sender.outbox, error);
  }
  return { message, file, inboxPath: join(recipient.inbox, file), outboxPath: join(sender.outbox, outboxFile), delivered: inInbox === undefined };
}

/** The signal is in the recipient's inbox, but the sender's record copy could not be written. */
export class SignalOutboxCopyError extends FedError {
  readonly signalId: string;
  readonly inboxPath: string;

  constructor(signalId: string, inboxPath: string, outbox: string, cause: unknown) {
    super(
      'SIGNAL_OUTBOX_FAILED',
      `signal ${signalId} was delivered (${inboxPath}), but its copy in the outbox ${outbox} could not be written: ${(cause as Error)?.message ?? String(cause)}. ` +
        `Do not send it again as a new signal; once the outbox is writable, re-run the same command with --id ${signalId} to complete the copy without delivering twice`,
      { refusal: false, cause },
    );
    this.signalId = signalId;
    this.inboxPath = inboxPath;
  }
}

/**
 * Publish one copy of a signal into a box.
 *
 * publishFileNoClobber tries `name`, `name-2`, `name-3`, … at one failed link (and one thrown error,
 * ~10 µs) each, so a burst of same-second, same-subject signals would cost quadratic time; after the
 * first collision the probe jumps past the run of taken names instead, found by galloping existence
 * checks (~1 µs each). That is only a hint: the hard link still decides, and a name taken meanwhile just
 * moves on to the next one. A box that does not exist is created then, sparing every send a mkdir
 * (workspaces are created with their boxes).
 */
function publishSignalFile(dir: string, name: string, text: string, options: WriteOptions): string {
  let firstFree: number | undefined;
  const publishOptions: PublishOptions = {
    ...options,
    nameForAttempt: (_candidate, attempt) => suffixedName(name, (firstFree ??= firstFreeSuffix(dir, name)) + attempt - 2),
  };
  try {
    return publishFileNoClobber(dir, name, text, publishOptions);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    ensureDirectory(dir, options);
    return publishFileNoClobber(dir, name, text, publishOptions);
  }
}

/** The first n ≥ 2 whose `suffixedName(name, n)` is free in `dir`, `name` itself being taken. */
function firstFreeSuffix(dir: string, name: string): number {
  const taken = (n: number) => existsSync(join(dir, suffixedName(name, n)));
  let low = 1;
  let high = 2;
  while (taken(high)) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (taken(middle)) low = middle;
    else high = middle;
  }
  return high;
}

/** The validated message and its file content. */
function buildMessage(request: SendSignalRequest, from: string, to: string, now: Date): { message: SignalMessage; text: string } {
  const candidate = {
    // Lower case, so a retry that spells the same UUID in capitals is still the same signal.
    id: request.id?.toLowerCase() ?? uuidv4(),
    timestamp: now.toISOString(),
    from,
    to,
    type: request.type,
    subject: request.subject,
    body: request.body ?? '',
    protocol: SIGNAL_PROTOCOL,
  };
  const parsed = signalMessageSchema.safeParse(candidate, { reportInput: true });
  if (!parsed.success) {
    throw new InvalidInputError(`cannot send the signal: ${zodProblemText(parsed.error)}`);
  }
  const text = toJsonText(parsed.data);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_SIGNAL_BYTES) {
    throw new InvalidInputError(
      `cannot send the signal: it would be ${bytes} bytes, over the ${MAX_SIGNAL_BYTES}-byte limit of a signal; ` +
        'write large content to a file in the workspace and name that file in the body',
    );
  }
  return { message: parsed.data, text };
}

/**
 * The copy of signal `wanted.id` already in `dir`, if any. A retried send repeats the type and subject,
 * so only files named for them are parsed — a few, however large the inbox. The same id on different
 * content is refused: it is a new signal reusing an id, not a retry.
 */
function findSentCopy(dir: string, expect: BoxExpectation, wanted: SignalMessage): StoredCopy | undefined {
  const pattern = sameSubjectPattern(wanted.type, wanted.subject);
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  for (const file of files) {
    if (!pattern.test(file)) continue;
    let judged;
    try {
      const read = readBoxFile(join(dir, file));
      if (!read.bytes) continue;
      judged = judgeSignal(read.bytes, expect);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    if (!judged.ok || judged.value.id !== wanted.id) continue;
    const differing = (['from', 'to', 'type', 'subject', 'body'] as const).filter((key) => judged.value[key] !== wanted[key]);
    if (differing.length) {
      throw new RefusedError(
        'SIGNAL_ID_REUSED',
        `signal id ${wanted.id} was already sent as ${join(dir, file)} with a different ${differing.join(', ')}; ` +
          'a retry must repeat the same signal — to send a new one, leave out --id',
      );
    }
    return { file, message: judged.value };
  }
  return undefined;
}

/**
 * Sending counts as activity (spec §2.4 `lastActive`), but at most one registry write per minute per
 * team. The signal is already delivered here, so a failure is a warning: reporting the send as failed
 * would make callers retry and deliver it twice.
 */
async function recordActivity(root: string, sender: SignalWorkspace, now: Date, options: SendSignalOptions): Promise<string[]> {
  const resolutionMs = options.activityResolutionMs ?? ACTIVITY_RESOLUTION_MS;
  if (!sender.entry || !activityIsStale(sender.entry, now, resolutionMs)) return [];
  try {
    await touchLastActive(root, sender.id, { durable: options.durable ?? true, now: () => now, resolutionMs });
    return [];
  } catch (error) {
    return [`the signal was delivered, but lastActive of "${sender.id}" could not be refreshed: ${(error as Error).message}`];
  }
}
