import { closeSync, constants, fstatSync, openSync, readSync, type BigIntStats, type Stats } from 'node:fs';
import {
  DEFAULT_MAX_FILE_BYTES,
  kindOf,
  readFileBounded,
  type BoundedRead,
  type BoundedReadOptions,
} from './read-file-bounded.js';
import type { z } from 'zod';
import { CorruptFileError, UnreadableFileError } from '../../core/errors.js';
import { zodProblemText } from '../../core/schema/problems.js';
import { parseJsonText } from '../../core/json-text.js';
import { readPermissionFix } from './fs-errors.js';

/**
 * The last `bytes` of a file (a log, the journal) and its size; undefined when it does not exist. Opened
 * like readFileBounded — never blocking, never a FIFO or directory (an UnreadableFileError naming it).
 */
export function readFileTail(path: string, bytes: number, fix: string): { tail: Buffer; size: number } | undefined {
  const read = readFileRange(path, fix, (size) => size - Math.min(size, bytes));
  return read && { tail: read.bytes, size: read.size };
}

/**
 * A file from byte `start` (or its end, when shorter) to its end, and its size; undefined when it does not
 * exist. Opened like readFileTail; more than `maxBytes` to read is an UnreadableFileError, as readTextFile's.
 */
export function readFileFrom(
  path: string,
  start: number,
  fix: string,
  maxBytes = DEFAULT_MAX_FILE_BYTES,
): { bytes: Buffer; size: number } | undefined {
  return readFileRange(path, fix, (size) => Math.min(start, size), maxBytes);
}

function readFileRange(
  path: string,
  fix: string,
  startOf: (size: number) => number,
  maxBytes = Infinity,
): { bytes: Buffer; size: number } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // As readTextFile says it (e.g. a folder on the path replaced by a file: ENOTDIR), naming the file.
    if (code !== undefined) throw unreadableFile(path, `cannot be read (${code})`, code, fix);
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UnreadableFileError(path, `${kindOf(stat)}, not a regular file`, fix);
    const start = startOf(stat.size);
    const length = stat.size - start;
    if (length > maxBytes)
      throw new UnreadableFileError(path, `${length} bytes to read, over the ${maxBytes}-byte limit`, fix);
    const bytes = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, bytes, read, length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    return { bytes: bytes.subarray(0, read), size: stat.size };
  } finally {
    closeSync(fd);
  }
}

/**
 * Read a text file within the bounds; undefined when it does not exist. Anything else that makes it
 * unusable is an UnreadableFileError naming the file, what it is, and `fix` (what the user should do).
 */
export function readTextFile(path: string, fix: string, options: BoundedReadOptions = {}): string | undefined {
  return readUsableFile(path, fix, options)?.bytes.toString('utf8');
}

/**
 * readTextFile with the identity of the file read (fileIdentity, of the descriptor read, as it was opened)
 * and when it last changed (its ctime, in ms, looked at after the read: a write in place while it was read
 * shows as a change just made), and when it was read (`readAtMs`, this clock just after that look): what a
 * cache of what was found in that file is keyed by.
 */
export function readIdentifiedTextFile(
  path: string,
  fix: string,
  options: BoundedReadOptions = {},
): { text: string; identity: string; changedMs: number; readAtMs: number } | undefined {
  const read = readUsableFile(path, fix, { ...options, identify: true, changedAfterRead: true });
  const readAtMs = Date.now();
  return read && { text: read.bytes.toString('utf8'), identity: read.identity!, changedMs: read.changedMs!, readAtMs };
}

function readUsableFile(
  path: string,
  fix: string,
  options: BoundedReadOptions,
): Extract<BoundedRead<Stats | BigIntStats>, { ok: true }> | undefined {
  let read: BoundedRead<Stats | BigIntStats>;
  try {
    read = readFileBounded(path, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (!read.ok) throw unreadableFile(path, read.problem, read.code, fix);
  return read;
}

/**
 * A file that cannot be used, with the caller's `fix` — unless fed may not read it (EACCES, EPERM): the
 * caller's fix is for its content, and a permission problem gets the advice that mends it instead.
 */
function unreadableFile(path: string, problem: string, code: string | undefined, fix: string): UnreadableFileError {
  return new UnreadableFileError(path, problem, readPermissionFix(code) ?? fix, code);
}

/**
 * A quick check of parsed JSON against a schema (e.g. isWellFormedEnvelope): it accepts only what the
 * schema accepts, as the schema would give it, and leaves everything else to the schema.
 */
export type QuickCheck<T> = (value: unknown) => value is T;

/**
 * Parse the text of a file fed manages with its schema. A file that is not JSON, or not the format, is a
 * CorruptFileError naming the file and every problem (line and column for bad JSON) — never reset. What
 * `quick` accepts is not parsed again by the schema.
 */
export function parseJsonFile<T>(text: string, file: string, schema: z.ZodType<T>, quick?: QuickCheck<T>): T {
  const json = parseJsonText(text);
  if (!json.ok)
    throw new CorruptFileError(file, `not valid JSON at line ${json.line}, column ${json.column} (${json.message})`);
  if (quick?.(json.value)) return json.value;
  const parsed = schema.safeParse(json.value, { reportInput: true });
  if (!parsed.success) throw new CorruptFileError(file, zodProblemText(parsed.error));
  return parsed.data;
}

const KEEP_IT = 'fed will not overwrite it; move it aside or restore it from a backup';

/** Read (bounded) and parse a file with its schema; undefined when the file does not exist. */
export function readJsonFile<T>(
  file: string,
  schema: z.ZodType<T>,
  options: BoundedReadOptions = {},
  quick?: QuickCheck<T>,
): T | undefined {
  const text = readTextFile(file, KEEP_IT, options);
  return text === undefined ? undefined : parseJsonFile(text, file, schema, quick);
}

/**
 * readJsonFile with the identity of the file read (fileIdentity, from the descriptor read), never through
 * a link at `file` (an UnreadableFileError names it): what a compare-and-swap of a file replaced
 * atomically compares, with no stat of the path around the read.
 */
export function readIdentifiedJsonFile<T>(
  file: string,
  schema: z.ZodType<T>,
  quick?: QuickCheck<T>,
): { value: T; identity: string } | undefined {
  const read = readUsableFile(file, KEEP_IT, { identify: true, noFollow: true });
  return read && { value: parseJsonFile(read.bytes.toString('utf8'), file, schema, quick), identity: read.identity! };
}
