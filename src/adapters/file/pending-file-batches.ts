import { joinPath } from '../../core/layout.js';
import type { InvalidSignalFile, SignalEntry, SignalReadResult } from '../../ports/signal-transport.js';
import { judgeAck, judgeSignal, type BoxExpectation, type Judged } from '../../core/schema/judge-signal.js';
import { judgeBoxFile, leftInPlace, readBoxFile } from './signals/parse-signal-file.js';
import { mayStillBeWritten, withAck } from './signals/read-signals.js';
import type { SignalType } from '../../core/schema/signal.js';
import { ACK_FILE_SUFFIX, ackFileName, isAckFileName, isSignalFileName, nameHint } from './signals/signal-file-name.js';
import { listDirectory } from '../../infra/fs/list-directory.js';

/** `2026-01-31T120405Z-…`: the whole second a signal file is named for (docs/design/spec.md §4.2). */
const NAMED_SECOND = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})(\d{2})(\d{2})Z-/;

function secondOf(name: string): number {
  const m = NAMED_SECOND.exec(name);
  return m
    ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]))
    : Number.NaN;
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

interface Timed {
  entry: SignalEntry;
  time: number;
}

/** Inbox order: timestamp, then file name. */
const inboxOrder = (a: Timed, b: Timed): number => a.time - b.time || byName(a.entry.file, b.entry.file);

export interface PendingFileBatchesOptions {
  batchSize: number;
  /** Judge every listed ack file again, not only those not known valid yet. */
  verify: boolean;
  /** See InboxOptions.settleMs. */
  settleMs: number;
  /** See PendingBatchOptions.types: a fed-made name tells the type, so the others are not opened. */
  types?: readonly SignalType[];
  /** See PendingBatchOptions.trustAcks: a listed ack file counts as valid, unread. */
  trustAcks?: boolean;
}

/**
 * Streaming pending signals of a file-signal-v1 inbox. What is pending is decided from the listing alone
 * — a signal is acknowledged when a valid `<name>.ack` is listed beside it — so only unacknowledged signal
 * files are opened, a batch at a time. Names start with their whole second, so the sorted names are in
 * time order by second; a batch is cut only between seconds (within one, the milliseconds inside decide)
 * and parsed when it is reached. A file named otherwise (put there by hand) is parsed up front and merged
 * into the batch its time falls in.
 *
 * `validAcks` (names of ack files judged valid and acknowledging, owned by the inbox) spares re-reading
 * every ack file on every pass: an ack file is published once and never rewritten by fed.
 */
export async function* pendingFileBatches(
  dir: string,
  expect: BoxExpectation,
  knownAcks: Set<string>,
  options: PendingFileBatchesOptions,
): AsyncGenerator<SignalReadResult> {
  // In name order (byName's: the default sort's, without a call per comparison), as a batch wants them:
  // readdir's own order already (libuv sorts its listing), so sorting it is one pass.
  const names = listDirectory(dir).sort();
  const invalid: InvalidSignalFile[] = [];
  const brokenAcks = new Set<string>();
  // Trusted: every listed ack is valid, none is judged (nor joins the inbox's set of acks known valid).
  const validAcks = options.trustAcks
    ? undefined
    : judgeListedAcks(dir, names, knownAcks, options, invalid, brokenAcks);

  // A signal whose ack file is broken is not pending: it is left to a person (its ack is reported invalid).
  const { types } = options;
  const wanted = (name: string): boolean => {
    const type = types && nameHint(name)?.type;
    return !type || types.includes(type);
  };
  const pending = (name: string, ackListed: boolean): boolean => {
    if (!ackListed) return true;
    if (validAcks === undefined) return false;
    const ack = ackFileName(name);
    return !validAcks.has(ack) && !brokenAcks.has(ack);
  };
  const candidates: string[] = [];
  forEachSignalFile(names, (name, ackListed) => {
    if (pending(name, ackListed) && wanted(name)) candidates.push(name);
  });
  const irregular: Timed[] = [];
  const groups: string[][] = [];
  let group: string[] = [];
  let second = Number.NaN;
  for (const name of candidates) {
    const named = secondOf(name);
    if (Number.isNaN(named)) {
      const read = readSignal(dir, name, expect, options.settleMs);
      if (read && 'invalid' in read) invalid.push(read.invalid);
      else if (read && isWanted(read, types)) irregular.push(read);
      continue;
    }
    if (group.length >= options.batchSize && named !== second) {
      groups.push(group);
      group = [];
    }
    group.push(name);
    second = named;
  }
  if (group.length > 0) groups.push(group);
  irregular.sort(inboxOrder);

  if (groups.length === 0) {
    if (irregular.length > 0 || invalid.length > 0) yield { signals: irregular.map((t) => t.entry), invalid };
    return;
  }
  for (let i = 0; i < groups.length; i++) {
    const names = groups[i]!;
    const last = i === groups.length - 1;
    const batch: Timed[] = [];
    const batchInvalid = i === 0 ? invalid : [];
    for (const name of names) {
      const read = readSignal(dir, name, expect, options.settleMs);
      if (read && 'invalid' in read) batchInvalid.push(read.invalid);
      else if (read && isWanted(read, types)) batch.push(read);
    }
    // Files named by hand whose time falls before the end of this batch's last second go with it.
    const end = last ? Number.POSITIVE_INFINITY : secondOf(names[names.length - 1]!) + 1_000;
    let taken = 0;
    while (taken < irregular.length && irregular[taken]!.time < end) taken++;
    batch.push(...irregular.splice(0, taken));
    yield { signals: batch.sort(inboxOrder).map((t) => t.entry), invalid: batchInvalid };
  }
}

/**
 * The acks of a listing judged (those not known valid yet, or all when `verify`): `knownAcks` keeps the
 * listed ones found valid and acknowledging, and forgets those no longer listed; broken ones are reported.
 */
function judgeListedAcks(
  dir: string,
  names: readonly string[],
  knownAcks: Set<string>,
  options: PendingFileBatchesOptions,
  invalid: InvalidSignalFile[],
  brokenAcks: Set<string>,
): Set<string> {
  if (options.verify) knownAcks.clear();
  const listedAcks = new Set<string>();
  for (const name of names) {
    if (!isAckFileName(name)) continue;
    listedAcks.add(name);
    if (knownAcks.has(name)) continue;
    const judged = judgeFile(dir, name, judgeAck, options.settleMs);
    if (judged === undefined) continue;
    if ('invalid' in judged) {
      invalid.push(judged.invalid);
      brokenAcks.add(name);
    } else if (judged.value.acknowledged) {
      knownAcks.add(name);
    }
  }
  for (const name of knownAcks) if (!listedAcks.has(name)) knownAcks.delete(name);
  return knownAcks;
}

/**
 * Each signal file of a listing in name order, and whether its ack file is listed: the names a name
 * begins follow it in that order, so its ack is the next name but for a file named like neither — no
 * set of acks, no ack name made for a signal that has one.
 */
function forEachSignalFile(sorted: readonly string[], visit: (name: string, ackListed: boolean) => void): void {
  for (let i = 0; i < sorted.length; i++) {
    const name = sorted[i]!;
    if (!isSignalFileName(name)) continue;
    let ackListed = false;
    for (let j = i + 1; j < sorted.length && sorted[j]!.startsWith(name); j++) {
      const next = sorted[j]!;
      if (next.length === name.length + ACK_FILE_SUFFIX.length && next.endsWith(ACK_FILE_SUFFIX)) {
        ackListed = true;
        break;
      }
    }
    visit(name, ackListed);
  }
}

/** A signal whose name did not tell its type (or told another than it has) is filtered once read. */
function isWanted(read: Timed, types: readonly SignalType[] | undefined): boolean {
  return !types || types.includes(read.entry.message.type);
}

function readSignal(
  dir: string,
  name: string,
  expect: BoxExpectation,
  settleMs: number,
): Timed | { invalid: InvalidSignalFile } | undefined {
  const judged = judgeFile(dir, name, (bytes) => judgeSignal(bytes, expect), settleMs);
  if (judged === undefined || 'invalid' in judged) return judged;
  const message = withAck(judged.value, undefined);
  return { entry: { file: name, path: joinPath(dir, name), message }, time: Date.parse(message.timestamp) };
}

/**
 * Read and judge one file; undefined when it vanished since the listing (quarantined, or archived by
 * another process). Judged as the incremental reader does (src/adapters/file/signals/read-signals.ts): a file that
 * could not be read, or is empty or cut short and changed within `settleMs`, is retryable.
 */
function judgeFile<T>(
  dir: string,
  name: string,
  judge: (bytes: Buffer) => Judged<T>,
  settleMs: number,
): { value: T } | { invalid: InvalidSignalFile } | undefined {
  const path = joinPath(dir, name);
  let file: ReturnType<typeof readBoxFile>;
  try {
    file = readBoxFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const judged = judgeBoxFile(file, judge);
  if (judged.ok) return { value: judged.value };
  const invalid: InvalidSignalFile = { file: name, path, reason: judged.reason };
  if (file.key.startsWith('error:') || mayStillBeWritten(judged, file.mtimeMs, settleMs)) invalid.retryable = true;
  if (leftInPlace(name, file)) invalid.special = true;
  return { invalid };
}
