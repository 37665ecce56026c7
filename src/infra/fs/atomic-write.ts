import { closeSync, fsync, fsyncSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from '../crypto/random.js';

/**
 * Durable, complete-on-delivery file writes (docs/design/invariants.md #1–3). Every shared file fed writes
 * goes through here: content lands in a temp file in the same directory, is fsynced, and only then is
 * moved into place in one step, so a reader sees either the old file or the whole new one — never a
 * torn or empty one, even when the writer is killed midway.
 */
export interface WriteOptions {
  /** fsync the file before publishing and the directory after (default true). Off only for tests, benchmarks and caches. */
  durable?: boolean;
}

export interface CreateOptions extends WriteOptions {
  /** With `durable`, fsync the directory after the file is created (default true); false for a caller that fsyncs it once after creating many. */
  syncDirectory?: boolean;
}

/** Temp files are dot-files ending in `.tmp`, so listings of `*.json` never pick them up. */
export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Whether a file name is one tempPathFor makes (`.<name>.<pid>.<12 hex>.tmp`): only such a file is fed's
 * to remove (fed doctor --fix); a user's `.notes.tmp` only looks like one.
 */
export function isTempFileName(name: string): boolean {
  return TEMP_FILE_NAME.test(name);
}

/** The name of the file a temp file named `name` was written for, if tempPathFor made that name. */
export function tempFileTarget(name: string): string | undefined {
  return TEMP_FILE_NAME.exec(name)?.[1];
}

const TEMP_FILE_NAME = /^\.(.+)\.\d+\.[0-9a-f]{12}\.tmp$/;

export function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** fsyncDirectory on the thread pool: a write made beside others waits for the disk with them, not after them. */
export async function fsyncDirectoryAsync(dir: string): Promise<void> {
  const fd = openSync(dir, 'r');
  try {
    await new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
  } finally {
    closeSync(fd);
  }
}

function writeTempFile(target: string, data: string | Uint8Array, durable: boolean): string {
  const { tmp, fd } = openWrittenTemp(target, data);
  try {
    if (durable) fsyncSync(fd);
  } catch (error) {
    throw discardTemp(tmp, fd, target, error);
  }
  closeSync(fd);
  return tmp;
}

/**
 * writeTempFile with its fsync on the thread pool: temp files written at once wait for their fsyncs
 * together. The write itself (to the page cache) is done here: nothing to wait for, and no fs/promises to
 * load (about 1 ms of a command's start).
 */
async function writeTempFileAsync(target: string, data: string): Promise<string> {
  const { tmp, fd } = openWrittenTemp(target, data);
  try {
    await new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
  } catch (error) {
    throw discardTemp(tmp, fd, target, error);
  }
  closeSync(fd);
  return tmp;
}

/** A new temp file beside `target` holding `data`, left open for the caller to sync and close. */
function openWrittenTemp(target: string, data: string | Uint8Array): { tmp: string; fd: number } {
  const tmp = tempPathFor(target);
  // `wx` (O_CREAT|O_EXCL) never follows a link at the temp path, and the rename that follows replaces a
  // link at `target` rather than writing through it: atomic writes need no O_NOFOLLOW (openForAppend).
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let offset = 0;
    while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
  } catch (error) {
    throw discardTemp(tmp, fd, target, error);
  }
  return { tmp, fd };
}

/** Close and remove a temp file that could not be written or synced; returns the error, naming `target`. */
function discardTemp(tmp: string, fd: number, target: string, error: unknown): unknown {
  closeSync(fd);
  unlinkQuietly(tmp);
  // write(2) and fsync(2) errors carry no path; the user needs to know which file could not be written.
  if (error instanceof Error && (error as NodeJS.ErrnoException).path === undefined)
    (error as NodeJS.ErrnoException).path = target;
  return error;
}

/**
 * Temp files holding `data`, one beside each of `targets`, for `linkFileNoClobber` to publish (and the
 * caller to unlink after): durable ones are written at once and flushed on the thread pool together, so a
 * send of several copies waits for one flush to disk rather than one per copy; without fsync, one after
 * another (nothing to wait for). Each target's temp file is a promise of its own, settled when that file is
 * on disk: a copy is published as soon as its own file is, while the next one's still flushes. The caller
 * handles every promise (a rejected one it never awaits would be an unhandled rejection) and decides what a
 * failed one means.
 */
export function writeTempFiles(
  targets: readonly string[],
  data: string,
  options: WriteOptions = {},
): Promise<string>[] {
  if (options.durable ?? true) return targets.map((target) => writeTempFileAsync(target, data));
  return targets.map((target) => {
    try {
      return Promise.resolve(writeTempFile(target, data, false));
    } catch (reason) {
      return Promise.reject(reason as Error);
    }
  });
}

export interface ReplaceOptions extends WriteOptions {
  /**
   * Compare-on-write: runs once the new content is complete on disk, right before it replaces the old
   * file, given the temp file that will (a writer may stamp it). Throwing cancels the write (the temp file
   * is removed, the target untouched) — how a writer that stalled while writing learns that its lock or
   * the version it read is no longer current.
   */
  beforeReplace?: (tmp: string) => void;
}

/** Replace `target` atomically with `data` (last writer wins; use for files with a single owner or a lock). */
export function writeFileAtomic(target: string, data: string | Uint8Array, options: ReplaceOptions = {}): void {
  const durable = options.durable ?? true;
  replaceWith(writeTempFile(target, data, durable), target, options);
  if (durable) fsyncDirectory(dirname(target));
}

/**
 * writeFileAtomic with its two fsyncs (the file's, then its folder's) on the thread pool: the same steps in
 * the same order — a crash leaves the old file or the whole new one — but the process goes on meanwhile. A
 * launcher applies the events of several agents at once (`fed run`), and one event's wait for the disk must
 * not hold up the others' (docs/operations.md, P12). Without `durable` there is nothing to wait for: the
 * write is done before this returns, as writeFileAtomic does it.
 */
export async function writeFileAtomicAsync(target: string, data: string, options: ReplaceOptions = {}): Promise<void> {
  if (!(options.durable ?? true)) return writeFileAtomic(target, data, options);
  replaceWith(await writeTempFileAsync(target, data), target, options);
  await fsyncDirectoryAsync(dirname(target));
}

/** The complete temp file `tmp` renamed over `target` once `beforeReplace` allows it; removed when it does not. */
function replaceWith(tmp: string, target: string, options: ReplaceOptions): void {
  try {
    options.beforeReplace?.(tmp);
    renameSync(tmp, target);
  } catch (error) {
    unlinkQuietly(tmp);
    throw error;
  }
}

export interface PublishOptions extends WriteOptions {
  /** Name to try for the n-th collision (n ≥ 2). Default: `name-<n>.ext`. */
  nameForAttempt?: (name: string, attempt: number) => string;
  /** Give up after this many collisions (default 10 000). */
  maxAttempts?: number;
}

export function suffixedName(name: string, attempt: number): string {
  const dot = name.indexOf('.', 1);
  return dot === -1 ? `${name}-${attempt}` : `${name.slice(0, dot)}-${attempt}${name.slice(dot)}`;
}

/**
 * Publish a new file into `dir` without ever replacing an existing one (docs/design/invariants.md #2): `rename` would
 * silently clobber a same-named file, so the complete temp file is hard-linked into place, which fails
 * with EEXIST instead; on collision the next suffixed name is tried. Returns the name it landed under.
 */
export function publishFileNoClobber(
  dir: string,
  name: string,
  data: string | Uint8Array,
  options: PublishOptions = {},
): string {
  const tmp = writeTempFile(join(dir, name), data, options.durable ?? true);
  try {
    return linkFileNoClobber(tmp, dir, name, options);
  } finally {
    unlinkQuietly(tmp);
  }
}

/**
 * Give an existing, complete file a (further) name in `dir` without ever replacing a file there: hard
 * links never overwrite, and EEXIST moves on to the next suffixed name. Moving a file aside this way keeps
 * its exact bytes and costs no copy; the caller removes the old name afterwards, so a crash in between
 * leaves two names, never none. Returns the name it landed under.
 */
export function linkFileNoClobber(source: string, dir: string, name: string, options: PublishOptions = {}): string {
  const nameFor = options.nameForAttempt ?? suffixedName;
  const maxAttempts = options.maxAttempts ?? 10_000;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const candidate = attempt === 1 ? name : nameFor(name, attempt);
    try {
      linkSync(source, join(dir, candidate));
      if (options.durable ?? true) fsyncDirectory(dir);
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`could not find a free file name for ${name} in ${dir} after ${maxAttempts} attempts`);
}

/**
 * Create `target` with `data` only if nothing is there yet; returns false (and writes nothing) when it
 * exists. Used for files that must never be overwritten once present (registry seed, config, locks).
 */
export function createFileExclusive(target: string, data: string | Uint8Array, options: CreateOptions = {}): boolean {
  const durable = options.durable ?? true;
  if (!linkExclusive(writeTempFile(target, data, durable), target)) return false;
  if (durable && (options.syncDirectory ?? true)) fsyncDirectory(dirname(target));
  return true;
}

/**
 * createFileExclusive with its flushes on the thread pool, for a file written beside others: a send's id
 * claim, made while its copies are written, waits for the disk together with them instead of before them.
 */
export async function createFileExclusiveAsync(
  target: string,
  data: string,
  options: CreateOptions = {},
): Promise<boolean> {
  if (!(options.durable ?? true)) return createFileExclusive(target, data, options);
  if (!linkExclusive(await writeTempFileAsync(target, data), target)) return false;
  if (options.syncDirectory ?? true) await fsyncDirectoryAsync(dirname(target));
  return true;
}

/** Link the complete temp file `tmp` to `target` unless something is there (false then); `tmp` is removed either way. */
function linkExclusive(tmp: string, target: string): boolean {
  try {
    linkSync(tmp, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkQuietly(tmp);
  }
}

export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
