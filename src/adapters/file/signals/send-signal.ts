import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FedError, RefusedError } from '../../../core/errors.js';
import { withLock } from '../../../infra/fs/lock.js';
import {
  fsyncDirectoryAsync,
  linkFileNoClobber,
  suffixedName,
  unlinkQuietly,
  writeTempFiles,
  type WriteOptions,
} from '../../../infra/fs/atomic-write.js';
import { toJsonText } from '../../../core/json-text.js';
import type { SentSignal } from '../../../ports/signal-transport.js';
import type { SignalMessage } from '../../../core/schema/signal.js';
import { ABSENT, findInNameRun, firstFreeSuffix } from './name-run.js';
import { readValidFile } from './read-valid-file.js';
import { CONCURRENT_SEND_MS } from '../../../core/schema/delivery.js';
import { judgeSignal, type BoxExpectation } from '../../../core/schema/judge-signal.js';
import type { SignalWorkspace } from './resolve-workspace.js';
import { sameSubjectPattern, signalFileName } from './signal-file-name.js';

interface StoredCopy {
  file: string;
  message: SignalMessage;
}

/**
 * Where a send looks for copies an earlier send with its id made: nowhere (a new id), among the
 * same-named files only (the send claimed the id: see `TransportSendOptions.claimed`), or among every
 * signal of its type and subject (a retry, whose first send may be long ago).
 */
export type EarlierCopies = 'none' | 'same-name' | 'same-subject';

/** Where to look for earlier copies: `earlier`, and for a retry the name its id's first send stored it under. */
export interface EarlierLookup {
  earlier: EarlierCopies;
  /** The file name of the signal as first sent (TransportSendOptions.firstSentAt), looked at before the others. */
  firstName?: string;
}

/**
 * The file-signal-v1 delivery of a validated message (`text` is its file content) into boxes that were
 * checked and are there (FileSignalTransport.prepareSend): the inbox copy, then the outbox copy. Unless
 * `lookup.earlier` is `none`, the caller chose the id, so a retry completes what is missing instead of
 * delivering again.
 */
export async function deliverSignal(
  recipient: SignalWorkspace,
  sender: SignalWorkspace,
  fresh: { message: SignalMessage; text: string },
  lookup: EarlierLookup,
  writeOptions: WriteOptions,
): Promise<SentSignal> {
  const { earlier } = lookup;
  const deliver = () =>
    deliverCopies(recipient, sender, fresh, { ...lookup, earlier: inTime(earlier, fresh.message) }, writeOptions);
  // Retries with one id may run at once (a caller that timed out and retried while the first still
  // runs): under a lock per recipient and id, each finds the copies the one before it wrote.
  return earlier === 'none'
    ? deliver()
    : withLock(sendLockPath(recipient, fresh.message.id), deliver, { timeoutMs: 60_000, makeFolder: true });
}

/**
 * Checked under the send lock: a claiming send that gets to its copies after CONCURRENT_SEND_MS may meet a
 * retry stored under the retry's own time, so it looks where a retry looks.
 */
function inTime(earlier: EarlierCopies, message: SignalMessage): EarlierCopies {
  return earlier === 'same-name' && Date.now() - Date.parse(message.timestamp) >= CONCURRENT_SEND_MS
    ? 'same-subject'
    : earlier;
}

/** `<recipient workspace>/.fed/signals/.send-<id>.lock`: beside the boxes, never read as a signal. */
function sendLockPath(recipient: SignalWorkspace, id: string): string {
  return join(dirname(recipient.inbox), `.send-${id}.lock`);
}

/**
 * Publish the inbox copy, then the outbox copy. A send with a chosen id first looks for copies already
 * there and completes whatever is missing, with the original message. When the outbox copy fails after the
 * signal reached the inbox, the error says it was delivered and gives the id, so nobody sends it again as new.
 * The missing copies are written to temp files at once — their fsyncs overlap, and no reader takes a temp
 * file for a signal — and each is published, complete, once its own file is on disk and the copy before it
 * is published: the inbox copy's link and folder flush overlap the outbox file's flush.
 */
async function deliverCopies(
  recipient: SignalWorkspace,
  sender: SignalWorkspace,
  fresh: { message: SignalMessage; text: string },
  lookup: EarlierLookup,
  writeOptions: WriteOptions,
): Promise<SentSignal> {
  const inInbox = findSentCopy(recipient.inbox, { owner: recipient.id, box: 'inbox' }, fresh.message, lookup);
  // An outbox copy is published under its inbox copy's name (below), which a collision may have suffixed.
  const inOutbox = findSentCopy(sender.outbox, { owner: sender.id, box: 'outbox' }, fresh.message, {
    ...lookup,
    firstName: inInbox?.file ?? lookup.firstName,
  });
  const stored = inInbox?.message ?? inOutbox?.message;
  const message = stored ?? fresh.message;
  const text = stored ? toJsonText(stored) : fresh.text;
  const name = inInbox?.file ?? inOutbox?.file ?? signalFileName(message);
  const missing = [...(inInbox ? [] : [recipient.inbox]), ...(inOutbox ? [] : [sender.outbox])];
  const temps = new Map(missing.map((dir, i) => [dir, i]));
  const written = writeTempFiles(
    missing.map((dir) => join(dir, name)),
    text,
    writeOptions,
  );
  // Every temp file's outcome is handled here, whichever copy fails first; what was written is removed
  // once the copies are published (or one could not be).
  const settled = Promise.allSettled(written);
  const temp = (dir: string): Promise<string> => written[temps.get(dir)!]!;
  const discard = async () => {
    for (const result of await settled) if (result.status === 'fulfilled') unlinkQuietly(result.value);
  };

  let file: string;
  try {
    // The inbox copy is published once its own file is on disk: the outbox copy's flush goes on meanwhile.
    file = inInbox?.file ?? (await linkSignalFile(await temp(recipient.inbox), recipient.inbox, name, writeOptions));
  } catch (error) {
    await discard();
    throw error;
  }
  let outboxFile: string;
  try {
    outboxFile = inOutbox?.file ?? (await linkSignalFile(await temp(sender.outbox), sender.outbox, file, writeOptions));
  } catch (error) {
    throw new SignalOutboxCopyError(message.id, join(recipient.inbox, file), sender.outbox, error);
  } finally {
    await discard();
  }
  return {
    message,
    file,
    inboxPath: join(recipient.inbox, file),
    outboxPath: join(sender.outbox, outboxFile),
    delivered: inInbox === undefined,
  };
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
 * Publish a complete temp file as a signal of `dir`: under `name`, or after a collision past the run of
 * taken names (firstFreeSuffix; one failed link, ~10 µs, per name would make a burst quadratic). The
 * folder is flushed on the thread pool, so the send's id claim, written meanwhile, goes on as it waits.
 */
async function linkSignalFile(temp: string, dir: string, name: string, options: WriteOptions): Promise<string> {
  let firstFree: number | undefined;
  const file = linkFileNoClobber(temp, dir, name, {
    durable: false,
    nameForAttempt: (_candidate, attempt) =>
      suffixedName(name, (firstFree ??= firstFreeSuffix(dir, name)) + attempt - 2),
  });
  if (options.durable ?? true) await fsyncDirectoryAsync(dir);
  return file;
}

/**
 * The copy of signal `wanted.id` already in `dir`, if any, looked for where `earlier` says — for
 * `same-name`, the run of names from `firstName` (default: the signal's own file name); for a retry
 * (`same-subject`), that run first, then every file named for the signal's type and subject (a retried
 * send repeats them, so only those are parsed). The same id on different content is refused: it is a new
 * signal reusing an id, not a retry.
 */
function findSentCopy(
  dir: string,
  expect: BoxExpectation,
  wanted: SignalMessage,
  { earlier, firstName }: EarlierLookup,
): StoredCopy | undefined {
  if (earlier === 'none') return undefined;
  const readCopy = (file: string): StoredCopy | undefined | typeof ABSENT => {
    const message = readValidFile(join(dir, file), (bytes) => judgeSignal(bytes, expect), ABSENT);
    if (message === ABSENT) return ABSENT;
    return message?.id === wanted.id ? { file, message } : undefined;
  };
  let copy: StoredCopy | undefined;
  if (earlier === 'same-name') copy = findInNameRun(dir, firstName ?? signalFileName(wanted), readCopy);
  else {
    // Where the first send stored it spares reading every same-subject signal of the box's history.
    if (firstName !== undefined) copy = findInNameRun(dir, firstName, readCopy);
    for (const file of copy ? [] : sameSubjectFiles(dir, wanted)) {
      const read = readCopy(file);
      if (read !== ABSENT && (copy = read)) break;
    }
  }
  const differing = copy
    ? (['from', 'to', 'type', 'subject', 'body'] as const).filter((key) => copy.message[key] !== wanted[key])
    : [];
  if (differing.length) {
    throw new RefusedError(
      'SIGNAL_ID_REUSED',
      `signal id ${wanted.id} was already sent as ${join(dir, copy!.file)} with a different ${differing.join(', ')}; ` +
        'a retry must repeat the same signal — to send a new one, leave out --id',
    );
  }
  return copy;
}

/** The files of `dir` named for a signal of `wanted`'s type and subject, any second. */
function sameSubjectFiles(dir: string, wanted: SignalMessage): string[] {
  const pattern = sameSubjectPattern(wanted.type, wanted.subject);
  try {
    return readdirSync(dir).filter((file) => pattern.test(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
