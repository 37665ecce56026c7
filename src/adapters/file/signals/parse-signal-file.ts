import { readFileBounded } from '../../../infra/fs/read-file-bounded.js';
import type { Judged } from '../../../core/schema/judge-signal.js';
import { MAX_SIGNAL_BYTES } from '../../../core/schema/signal.js';
import { isAckFileName } from './signal-file-name.js';

/**
 * Reading one file of a signal box (judging its bytes is src/core/schema/judge-signal.ts). Every way a file
 * can be unusable ends in a reason a person can act on — never an exception — so one bad file cannot
 * hide the others (docs/design/invariants.md #4).
 */

/** The file's contents and the stat they were read with (the reader's cache key). */
export interface ReadFile {
  bytes: Buffer | undefined;
  /** `ino:size:mtime` of the file that was read. */
  key: string;
  problem: string | undefined;
  /** A directory, FIFO, device or socket: not a file at all (see leftInPlace). */
  special?: boolean;
  /** When the file last changed (undefined when it could not be opened). */
  mtimeMs?: number;
}

const EMPTY_FILE = 'the file is empty';

export function statKey(stat: { ino: number; size: number; mtimeMs: number }): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}

/**
 * Read a box file without following a symbolic link (a link could point anywhere outside the box),
 * without blocking on a FIFO and without reading more than `maxBytes` (src/infra/fs readFileBounded). The stat
 * comes from the same open file as the bytes, so the cache key always describes what was parsed. Throws
 * ENOENT when the file vanished since the listing.
 */
export function readBoxFile(path: string, maxBytes = MAX_SIGNAL_BYTES): ReadFile {
  const read = readFileBounded(path, { maxBytes, noFollow: true });
  if (read.ok) {
    const key = statKey(read.stat);
    const mtimeMs = read.stat.mtimeMs;
    return read.bytes.length === 0
      ? { bytes: undefined, key, problem: EMPTY_FILE, mtimeMs }
      : { bytes: read.bytes, key, problem: undefined, mtimeMs };
  }
  if (read.code === 'ELOOP') return { bytes: undefined, key: 'symlink', problem: 'a symbolic link, not a signal file' };
  if (read.stat === undefined) return { bytes: undefined, key: `error:${read.code}`, problem: read.problem };
  return {
    bytes: undefined,
    key: statKey(read.stat),
    problem: read.problem,
    special: !read.stat.isFile(),
    mtimeMs: read.stat.mtimeMs,
  };
}

/**
 * A box file as read, judged: its bytes by `judge`, else why it could not be read (an empty file is
 * incomplete, as one still being written is).
 */
export function judgeBoxFile<T>(file: ReadFile, judge: (bytes: Buffer) => Judged<T>): Judged<T> {
  return file.bytes
    ? judge(file.bytes)
    : { ok: false, reason: file.problem ?? 'unreadable', incomplete: file.problem === EMPTY_FILE };
}

/**
 * Whether a box entry is reported and left where it is, never quarantined: a directory, FIFO, device or
 * socket named like a signal. One named like an ack is quarantined like any bad ack (quarantineSignalFile
 * moves it), or its signal could never be acknowledged nor applied.
 */
export function leftInPlace(name: string, file: ReadFile): boolean {
  return file.special === true && !isAckFileName(name);
}
