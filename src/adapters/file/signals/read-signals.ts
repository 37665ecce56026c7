import { lstatSync, readdirSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { MAX_SIGNAL_BYTES, SETTLE_MS, type SignalAck, type SignalMessage } from '../../../core/schema/signal.js';
import { ACK_FILE_SUFFIX, isAckFileName, isSignalFileName } from './signal-file-name.js';
import type { InvalidSignalFile, SignalEntry, SignalReadResult } from '../../../ports/signal-transport.js';
import { judgeBoxFile, leftInPlace, readBoxFile, statKey } from './parse-signal-file.js';
import { judgeAck, judgeSignal, type BoxExpectation, type Judged } from '../../../core/schema/judge-signal.js';

// The shapes of stored signals are the signal transport port's (file-signal-v1 is its file adapter).

/** What one `read()` cost, so tests and benchmarks can see that re-polls stay incremental. */
export interface ReadWork {
  /** Whether the directory was listed (false: its stat proved nothing changed). */
  listed: boolean;
  /** Files stat-ed or opened. */
  statted: number;
  /** Files parsed. */
  parsed: number;
}

export interface ReadOptions {
  /**
   * Stat every file and re-parse those whose size, mtime or inode changed. Without it, files already
   * seen are trusted: fed publishes signal and ack files once and never rewrites them, so only an
   * outside edit in place can change one — a periodic verifying read catches that too.
   */
  verify?: boolean;
}

/**
 * A directory's mtime has a coarse clock (a kernel tick, or whole seconds on some filesystems): a change
 * in the same tick as our listing can leave it unchanged. So an unchanged directory stat is trusted only
 * once the directory has been quiet for this long; before that the directory is listed again (cheap).
 */
export const QUIET_DIRECTORY_MS = 2_000;

export interface SignalBoxReaderOptions {
  /** Files larger than this are reported as invalid, not read (default MAX_SIGNAL_BYTES). */
  maxBytes?: number;
  /** How long the directory must have been unchanged before its stat alone is trusted (default 2 s). */
  quietDirectoryMs?: number;
  /**
   * A file that does not parse but changed less than this long ago (default 2 s) may be a signal a
   * foreign tool is still writing in place: it is retryable and re-read on every poll until it parses or
   * has been still this long.
   */
  settleMs?: number;
}

/**
 * Whether a file that does not parse may still be being written in place: empty or cut-off JSON that
 * changed within `settleMs`. A modification time in the future (a skewed or forged clock) counts only as
 * far as the settle time reaches: else a file stamped next year would keep its signal waiting until then.
 */
export function mayStillBeWritten(
  judged: { ok: boolean; incomplete?: boolean },
  mtimeMs: number | undefined,
  settleMs: number,
): boolean {
  if (judged.ok || judged.incomplete !== true || mtimeMs === undefined) return false;
  const age = Date.now() - mtimeMs;
  return age < settleMs && age > -settleMs;
}

interface Cached<T> {
  key: string;
  judged: Judged<T>;
  special?: boolean;
}

/**
 * A cached signal file. What is derived from it for results — the entry with its ack merged in, and
 * the timestamp as a sort key — is kept too, built on first use; a re-read file gets a fresh object.
 */
interface CachedSignal extends Cached<SignalMessage> {
  derived?: Derived;
}

interface Derived {
  entry: SignalEntry;
  /** Milliseconds of the message timestamp. */
  time: number;
  /** The ack cache entry the entry was built with, so a new or changed ack rebuilds it. */
  ack: Cached<SignalAck> | undefined;
}

/**
 * Incremental reader of one signal box (spec "Read signals": list `.json` files, parse, keep those for
 * the owner). Results are cached per file by inode + size + mtime, so a re-poll of an unchanged box costs
 * one directory stat, and a changed box costs a listing plus a parse of only the new or changed files.
 */
export class SignalBoxReader {
  readonly dir: string;
  private readonly prefix: string;
  readonly expect: BoxExpectation;
  private readonly maxBytes: number;
  private readonly quietDirectoryMs: number;
  private readonly settleMs: number;
  private readonly signalCache = new Map<string, CachedSignal>();
  private readonly ackCache = new Map<string, Cached<SignalAck>>();
  private directoryKey: string | undefined;
  private directoryQuiet = false;
  /** Files whose last read failed with an I/O error, or were invalid but not yet settled: re-read on every poll. */
  private readonly unreadable = new Set<string>();
  /** The previous listing: an identical one means nothing was added, removed or renamed. */
  private listing: string[] = [];
  /** The assembled result; undefined whenever the cache changed since. */
  private result: SignalReadResult | undefined;
  private work: ReadWork = { listed: false, statted: 0, parsed: 0 };

  constructor(dir: string, expect: BoxExpectation, options: SignalBoxReaderOptions = {}) {
    this.dir = dir;
    this.prefix = join(dir, sep);
    this.expect = expect;
    this.maxBytes = options.maxBytes ?? MAX_SIGNAL_BYTES;
    this.quietDirectoryMs = options.quietDirectoryMs ?? QUIET_DIRECTORY_MS;
    this.settleMs = options.settleMs ?? SETTLE_MS;
  }

  /**
   * The path of a name of the listing: the folder joined once, the name appended (a directory entry's name
   * has no separator to normalise; path.join per file was a tenth of a large box's read).
   */
  private pathOf(name: string): string {
    return `${this.prefix}${name}`;
  }

  get lastWork(): ReadWork {
    return { ...this.work };
  }

  read(options: ReadOptions = {}): SignalReadResult {
    const verify = options.verify ?? false;
    this.work = { listed: false, statted: 1, parsed: 0 };
    let names: string[];
    try {
      // Stat before listing: a change after this stat shows up as a different stat next time.
      const stat = statSync(this.dir);
      const key = `${stat.ino}:${stat.mtimeMs}:${stat.ctimeMs}`;
      if (!verify && this.result && key === this.directoryKey && this.directoryQuiet && this.unreadable.size === 0)
        return copy(this.result);
      this.directoryKey = key;
      this.directoryQuiet = Date.now() - Math.max(stat.mtimeMs, stat.ctimeMs) >= this.quietDirectoryMs;
      names = readdirSync(this.dir);
      this.work.listed = true;
      if (!verify && this.result && sameList(names, this.listing) && this.unreadable.size === 0)
        return copy(this.result);
    } catch (error) {
      // A box that does not exist (yet) is empty; it is created by the first send.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.directoryKey = undefined;
      names = [];
    }

    this.listing = names;
    // Only a cache that held entries before this listing can hold some of files gone since.
    if (this.signalCache.size === 0 && this.ackCache.size === 0)
      for (const name of names) this.refreshName(name, verify);
    else this.refreshListed(names, verify);
    this.result ??= this.assemble();
    return copy(this.result);
  }

  /** Refresh the listed names, and forget the cached files that are no longer listed. */
  private refreshListed(names: readonly string[], verify: boolean): void {
    const present = new Set<string>();
    for (const name of names) if (this.refreshName(name, verify)) present.add(name);
    // A file gone is no longer waited for: else an unreadable one removed would keep every later read
    // from taking the unchanged-box shortcut.
    for (const name of this.unreadable) if (!present.has(name)) this.unreadable.delete(name);
    for (const cache of [this.signalCache, this.ackCache]) {
      for (const name of cache.keys()) {
        if (present.has(name)) continue;
        cache.delete(name);
        this.result = undefined;
      }
    }
  }

  /**
   * The fs.watch fast path: bring just these names up to date — each re-checked, since an event says it
   * may have changed — without listing the directory, and return the valid signals and the invalid files
   * among them. Its cost does not grow with the size of the box.
   */
  readNames(names: Iterable<string>): SignalReadResult {
    this.work = { listed: false, statted: 0, parsed: 0 };
    const signals: Derived[] = [];
    const invalid: InvalidSignalFile[] = [];
    for (const name of new Set(names)) {
      if (!this.refreshName(name, true)) continue;
      const signal = this.signalCache.get(name);
      const judged = signal?.judged ?? this.ackCache.get(name)?.judged;
      if (signal?.judged.ok) signals.push(this.derive(name, signal, signal.judged.value));
      else if (judged && !judged.ok)
        invalid.push(this.invalidFile(name, judged.reason, (signal ?? this.ackCache.get(name))?.special));
    }
    return { signals: sortedEntries(signals), invalid };
  }

  /** Refresh the cache entry of one directory entry; false when it is not a box file, or is gone. */
  private refreshName(name: string, verify: boolean): boolean {
    if (this.expect.box === 'inbox' && isAckFileName(name)) return this.refresh(this.ackCache, name, verify, judgeAck);
    if (!isSignalFileName(name)) return false;
    return this.refresh(this.signalCache, name, verify, (bytes) => judgeSignal(bytes, this.expect));
  }

  /**
   * Bring the cache entry of `name` up to date; false when the file vanished meanwhile (e.g. it was
   * quarantined by another process), so it is simply not part of this read.
   */
  private refresh<T>(
    cache: Map<string, Cached<T>>,
    name: string,
    verify: boolean,
    judge: (bytes: Buffer) => Judged<T>,
  ): boolean {
    const path = this.pathOf(name);
    const cached = cache.get(name);
    try {
      if (cached && !verify && !this.unreadable.has(name)) return true;
      if (cached) {
        this.work.statted++;
        if (statKey(lstatSync(path)) === cached.key) return true;
      }
      this.work.statted++;
      const file = readBoxFile(path, this.maxBytes);
      this.work.parsed++;
      const judged = judgeBoxFile(file, judge);
      cache.set(name, leftInPlace(name, file) ? { key: file.key, judged, special: true } : { key: file.key, judged });
      // Empty or cut-off JSON that changed a moment ago may be a signal a slow writer is still writing.
      const unsettled = mayStillBeWritten(judged, file.mtimeMs, this.settleMs);
      if (isIoError(file.key) || unsettled) this.unreadable.add(name);
      else this.unreadable.delete(name);
      this.result = undefined;
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.unreadable.delete(name);
      if (cache.delete(name)) this.result = undefined;
      return false;
    }
  }

  /** The entry of a valid signal with its current ack merged in, rebuilt only when the ack changed. */
  private derive(file: string, cached: CachedSignal, message: SignalMessage): Derived {
    const ack = this.expect.box === 'inbox' ? this.ackCache.get(`${file}${ACK_FILE_SUFFIX}`) : undefined;
    if (!cached.derived || cached.derived.ack !== ack) {
      // The first entry of a signal takes its ack into the parsed message itself, which only this cache
      // holds: V8 copies an object parsed from JSON slowly (~2 µs, more than parsing it). A later entry
      // (its ack came or changed) copies the message, which the first one froze.
      const merged =
        this.expect.box !== 'inbox'
          ? message
          : cached.derived
            ? withAck(message, ack?.judged)
            : takeAck(message, ack?.judged);
      // Frozen: the same entry is handed out by every read until the file or its ack changes.
      const entry = Object.freeze({ file, path: this.pathOf(file), message: Object.freeze(merged) });
      cached.derived = { entry, time: Date.parse(message.timestamp), ack };
    }
    return cached.derived;
  }

  private invalidFile(file: string, reason: string, special: boolean | undefined): InvalidSignalFile {
    const entry: InvalidSignalFile = { file, path: this.pathOf(file), reason };
    if (this.unreadable.has(file)) entry.retryable = true;
    if (special) entry.special = true;
    return entry;
  }

  private assemble(): SignalReadResult {
    const signals: Derived[] = [];
    const invalid: InvalidSignalFile[] = [];
    // forEach, not for…of: an iterator makes an [name, entry] pair per file.
    this.signalCache.forEach((cached, file) => {
      if (cached.judged.ok) signals.push(this.derive(file, cached, cached.judged.value));
      else invalid.push(this.invalidFile(file, cached.judged.reason, cached.special));
    });
    this.ackCache.forEach(({ judged, special }, file) => {
      if (!judged.ok) invalid.push(this.invalidFile(file, judged.reason, special));
    });
    invalid.sort((a, b) => compareText(a.file, b.file));
    return { signals: sortedEntries(signals), invalid };
  }
}

/** readBoxFile's cache key for a file it could not read at all. */
function isIoError(key: string): boolean {
  return key.startsWith('error:');
}

/** One-shot read of a box (`fed signal list`). */
export function readSignalBox(
  dir: string,
  expect: BoxExpectation,
  options: SignalBoxReaderOptions = {},
): SignalReadResult {
  return new SignalBoxReader(dir, expect, options).read();
}

/**
 * The ack file is the record of acknowledgment (docs/design/spec.md §3.2: unacknowledged until the recipient writes
 * it); whatever the signal file itself says about it is replaced.
 */
export function withAck(message: SignalMessage, ack: Judged<SignalAck> | undefined): SignalMessage {
  const acknowledged = ack?.ok === true && ack.value.acknowledged;
  // A signal as fed writes it says nothing of an ack: one copy (a rest pattern copies by the slow path).
  if (!('acknowledged' in message) && !('acknowledged_at' in message))
    return acknowledged
      ? { ...message, acknowledged: true, acknowledged_at: ack.value.acknowledged_at }
      : { ...message, acknowledged: false };
  const { acknowledged: _a, acknowledged_at: _at, ...rest } = message;
  if (acknowledged) return { ...rest, acknowledged: true, acknowledged_at: ack.value.acknowledged_at };
  return { ...rest, acknowledged: false };
}

/**
 * withAck of a message just parsed, which nothing else holds yet: the ack's fields are added to it (at
 * its end, as withAck's copy has them) instead of to a copy. A message that carries ack fields of its
 * own is copied by withAck, which drops them.
 */
function takeAck(parsed: SignalMessage, ack: Judged<SignalAck> | undefined): SignalMessage {
  if ('acknowledged' in parsed || 'acknowledged_at' in parsed) return withAck(parsed, ack);
  const acknowledged = ack?.ok === true && ack.value.acknowledged;
  parsed.acknowledged = acknowledged;
  if (acknowledged) parsed.acknowledged_at = ack.value.acknowledged_at;
  return parsed;
}

/** By timestamp, then file name. */
function sortedEntries(derived: Derived[]): SignalEntry[] {
  return derived.sort((a, b) => a.time - b.time || compareText(a.entry.file, b.entry.file)).map((d) => d.entry);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function copy(result: SignalReadResult): SignalReadResult {
  return { signals: [...result.signals], invalid: [...result.invalid] };
}
