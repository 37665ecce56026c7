import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { codeCacheDir } from '../infra/code-cache-dir.js';

/**
 * A V8 code cache for the `fed` bundle: the compiled code of one run, kept on disk so the next run of the
 * same command deserialises it instead of parsing and compiling the bundle again (on Node 20, compiling is
 * most of a short command's start-up). One file per command, made by that command's first run, so it holds
 * exactly the functions that command runs. It is only ever an optimisation: a missing, unreadable, foreign
 * or rejected cache just means compiling as without one, and a cache that cannot be written is skipped —
 * nothing here throws or prints.
 *
 * Where: codeCacheDir (src/infra/code-cache-dir.ts); `FED_CODE_CACHE=off` turns the cache off.
 */

/** A cache file larger than this is not ours (fed's largest is a few MB). */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The cache files for `command` of the bundle whose content hash is `bundleHash`, or undefined when the
 * cache is off. Keyed by Node version and architecture too: V8 rejects a cache made by another V8, and
 * two Node versions sharing a folder must not keep replacing each other's files.
 *
 * `complete` is made by a run that ran to its end; `provisional` by one an error stopped (bad input, no
 * federation here, a refusal), which may have run a small part of the command: an early failure's cache
 * held half the code of a `fed monitor`, and every later run compiled the rest (8 % slower, measured).
 * A provisional cache is used until a run goes to its end and replaces it with a complete one.
 */
export function codeCacheFiles(
  env: NodeJS.ProcessEnv,
  bundleHash: string,
  command: string,
): { complete: string; provisional: string } | undefined {
  const dir = codeCacheDir(env);
  if (dir === undefined) return undefined;
  const stem = join(dir, `${buildPrefix(bundleHash)}${command}`);
  return { complete: `${stem}.v8cache`, provisional: `${stem}.provisional.v8cache` };
}

/** What every cache file of this build, on this Node and architecture, is named from. */
function buildPrefix(bundleHash: string): string {
  return `${bundleHash}-${process.version}-${process.arch}-`;
}

/** Another build's (or Node's) cache left unwritten this long is removed by pruneCodeCaches. */
export const STALE_CACHE_MS = 24 * 60 * 60 * 1000;

/** A cache file as codeCacheFiles names it: bundle hash, Node version, architecture, command. */
const CACHE_FILE = /^[0-9a-f]+-v\d+\.\d+\.\d+(?:-[\w.]+)?-\w+-[\w.-]+\.v8cache$/;

/**
 * Remove the caches other builds of fed, or other Node versions, left in the folder and have not written
 * for STALE_CACHE_MS, and temp files a killed write left. Each build leaves a cache of a few MB per command
 * it ran, and the folder kept them all: 450 MB after a day of rebuilding fed. Another fed still in use
 * only makes its cache again, on its next run of that command (a cache's time is when it was written, not
 * last read: two in turn remake theirs about once a day). Run by a run that wrote a cache (a command's
 * first after a build), so a run that found its cache pays nothing; only this user's regular files named as
 * ours are touched, and nothing here throws.
 */
export async function pruneCodeCaches(env: NodeJS.ProcessEnv, bundleHash: string, nowMs = Date.now()): Promise<void> {
  const dir = codeCacheDir(env);
  if (dir === undefined) return;
  const ours = buildPrefix(bundleHash);
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  // Loaded by the cache's write already (writeCodeCache), which every pruning run made.
  const { tempFileTarget } = await import('../infra/fs/atomic-write.js');
  for (const name of names) {
    // A killed write's temp file of any build, this one's too: it is named for the cache it was writing.
    const cache = tempFileTarget(name) ?? name;
    if ((cache === name && name.startsWith(ours)) || !CACHE_FILE.test(cache)) continue;
    const file = join(dir, name);
    try {
      const stat = lstatSync(file);
      if (!stat.isFile() || (uid !== undefined && stat.uid !== uid) || nowMs - stat.mtimeMs < STALE_CACHE_MS) continue;
      rmSync(file, { force: true });
    } catch {
      // Gone meanwhile, or not ours to remove: left as it is.
    }
  }
}

/** Which cache a run read: none, or the kind of the one V8 was handed. */
export type CacheFound = 'complete' | 'provisional' | undefined;

/** A cache a run leaves, and the other one it makes useless (removed once it is written). */
export interface CacheWrite {
  kind: 'complete' | 'provisional';
  removes?: 'complete' | 'provisional';
}

/**
 * Which cache a run leaves, if any, from the one it read (`found`, unless V8 `rejected` it) and whether
 * the command ran to its end (CliOutcome): such a run leaves a complete cache unless it ran from one;
 * any other a provisional one, only when it ran from none it could use — it never replaces a cache it
 * could use. A complete cache replaces the provisional one; a provisional one, a complete one V8
 * refused (made under other V8 flags, or damaged), which would be read first and refused again.
 */
export function cacheToWrite(found: CacheFound, rejected: boolean, ranToEnd: boolean): CacheWrite | undefined {
  const usable = rejected ? undefined : found;
  if (ranToEnd) return usable === 'complete' ? undefined : { kind: 'complete', removes: 'provisional' };
  if (usable !== undefined) return undefined;
  return found === 'complete' ? { kind: 'provisional', removes: 'complete' } : { kind: 'provisional' };
}

/**
 * The cache in `file`, or undefined when there is none usable: only a regular file owned by this user is
 * read (a shared temp directory must not let another user hand us code), never a FIFO (opened without
 * blocking), never an oversized file.
 */
export function readCodeCache(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    const uid = process.getuid?.();
    if (!stat.isFile() || stat.size > MAX_CACHE_BYTES || (uid !== undefined && stat.uid !== uid)) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Replace `file` with `data`, atomically (a concurrent run reads the old cache or the new one, never half
 * of one) and without fsync (a cache lost in a crash is only made again), then remove `supersedes` (the
 * cache this one makes useless: cacheToWrite). The folder is private to the user. Any failure (read-only
 * disk, no permission) leaves things as they were; true when the cache was written.
 */
export async function writeCodeCache(file: string, data: Uint8Array, supersedes?: string): Promise<boolean> {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Loaded only here: a run that found its cache never pays for the writer.
    const { writeFileAtomic } = await import('../infra/fs/atomic-write.js');
    writeFileAtomic(file, data, { durable: false });
    // After the write: a crash between leaves both, and the complete one is read first.
    if (supersedes !== undefined) rmSync(supersedes, { force: true });
    return true;
  } catch {
    // Only an optimisation: the next run compiles again and tries again.
    return false;
  }
}
