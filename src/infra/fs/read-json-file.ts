import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import type { z } from 'zod';
import { CorruptFileError, UnreadableFileError } from '../../core/errors.js';
import { zodProblemText } from '../../core/schema/problems.js';
import { parseJsonText } from '../../core/json-text.js';

/**
 * The one way fed reads a file it did not write itself or that anyone may have replaced: bounded in size
 * and never blocking. `O_NONBLOCK` makes opening a FIFO return at once instead of waiting for a writer
 * forever; the file is then judged by `fstat` of the very descriptor that is read (no race with a rename),
 * so a FIFO, a device or a directory where a file is expected is reported by name, never read, and a file
 * over the limit (a 2 GiB sparse file) is refused before a byte of it is loaded.
 */
export const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024;

export interface BoundedReadOptions {
  /** Refuse files larger than this (default 16 MiB). */
  maxBytes?: number;
  /** Do not follow a symbolic link at the path itself: it is reported instead (signal boxes). */
  noFollow?: boolean;
}

export type BoundedRead =
  | { ok: true; bytes: Buffer; stat: Stats }
  /** `stat` is there when the file could be opened; `code` is the errno when opening or reading failed. */
  | { ok: false; problem: string; stat?: Stats; code?: string };

/** Read `path` within the bounds; every unusable file is a result with a reason. Throws only ENOENT. */
export function readFileBounded(path: string, options: BoundedReadOptions = {}): BoundedRead {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw error;
    if (code === 'ELOOP' && options.noFollow) return { ok: false, problem: 'a symbolic link, not a file', code };
    return { ok: false, problem: `cannot be read (${code ?? (error as Error).message})`, code };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, problem: `${kindOf(stat)}, not a regular file`, stat };
    if (stat.size > maxBytes)
      return { ok: false, problem: `the file is ${stat.size} bytes, over the ${maxBytes}-byte limit`, stat };
    // Read at most one byte past the limit: a file growing while it is read cannot make this unbounded.
    // A size of 0 may be unknown rather than empty (procfs: /proc/version): then it is read to its end.
    const sizeKnown = stat.size > 0;
    let buffer = Buffer.allocUnsafe(Math.min(sizeKnown ? stat.size : 4096, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const asked = buffer.length - length;
      const n = readSync(fd, buffer, length, asked, null);
      length += n;
      if (n === 0 || length > maxBytes) break;
      // A regular file of known size gives fewer bytes than asked only at its end: no read just to be told 0.
      if (sizeKnown && n < asked) break;
      if (length === buffer.length) {
        if (sizeKnown) break;
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
    }
    if (length > maxBytes)
      return {
        ok: false,
        problem: sizeKnown
          ? `the file grew over the ${maxBytes}-byte limit while it was read`
          : `the file is over the ${maxBytes}-byte limit`,
        stat,
      };
    return { ok: true, bytes: buffer.subarray(0, length), stat };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, problem: `cannot be read (${code ?? (error as Error).message})`, code };
  } finally {
    closeSync(fd);
  }
}

/**
 * The last `bytes` of a file (a log, the journal) and its size; undefined when it does not exist. Opened
 * like readFileBounded — never blocking, never a FIFO or directory (an UnreadableFileError naming it).
 */
export function readFileTail(path: string, bytes: number, fix: string): { tail: Buffer; size: number } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UnreadableFileError(path, `${kindOf(stat)}, not a regular file`, fix);
    const length = Math.min(stat.size, bytes);
    const tail = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, tail, read, length - read, stat.size - length + read);
      if (n === 0) break;
      read += n;
    }
    return { tail: tail.subarray(0, read), size: stat.size };
  } finally {
    closeSync(fd);
  }
}

/** What a file that is not a regular file is, for messages ("a named pipe (FIFO)"). */
export function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'a special file';
}

/**
 * Read a text file within the bounds; undefined when it does not exist. Anything else that makes it
 * unusable is an UnreadableFileError naming the file, what it is, and `fix` (what the user should do).
 */
export function readTextFile(path: string, fix: string, options: BoundedReadOptions = {}): string | undefined {
  let read: BoundedRead;
  try {
    read = readFileBounded(path, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (!read.ok) throw new UnreadableFileError(path, read.problem, fix);
  return read.bytes.toString('utf8');
}

/**
 * Parse the text of a file fed manages with its schema. A file that is not JSON, or not the format, is a
 * CorruptFileError naming the file and every problem (line and column for bad JSON) — never reset.
 */
export function parseJsonFile<T>(text: string, file: string, schema: z.ZodType<T>): T {
  const json = parseJsonText(text);
  if (!json.ok)
    throw new CorruptFileError(file, `not valid JSON at line ${json.line}, column ${json.column} (${json.message})`);
  const parsed = schema.safeParse(json.value, { reportInput: true });
  if (!parsed.success) throw new CorruptFileError(file, zodProblemText(parsed.error));
  return parsed.data;
}

/** Read (bounded) and parse a file with its schema; undefined when the file does not exist. */
export function readJsonFile<T>(file: string, schema: z.ZodType<T>, options: BoundedReadOptions = {}): T | undefined {
  const text = readTextFile(file, 'fed will not overwrite it; move it aside or restore it from a backup', options);
  return text === undefined ? undefined : parseJsonFile(text, file, schema);
}
