import { closeSync, constants, fstatSync, openSync, readSync, type BigIntStats, type Stats } from 'node:fs';

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
  /** Also give the identity (fileIdentity) of the very file read, from its descriptor. */
  identify?: boolean;
  /**
   * With `identify`: `changedMs` from a second look at the descriptor after the read, so a file written in
   * place while it was read shows as just changed (the identity is of the first look, before the read).
   */
  changedAfterRead?: boolean;
}

/**
 * `ino:size:mtime:ctime` (nanoseconds): a file fed replaces atomically (a new inode per write) and never
 * changes in place has a new identity after every write, so an unchanged identity means unchanged content.
 */
export function fileIdentity(stat: BigIntStats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/** The stat of the descriptor read: with bigint fields when the identity is asked for (`identify`). */
export type BoundedRead<S extends Stats | BigIntStats = Stats> =
  /** `identity` and `changedMs` (its ctime, in ms) when asked for (`identify`). */
  | { ok: true; bytes: Buffer; stat: S; identity?: string; changedMs?: number }
  /** `stat` is there when the file could be opened; `code` is the errno when opening or reading failed. */
  | { ok: false; problem: string; stat?: S; code?: string };

/** Read `path` within the bounds; every unusable file is a result with a reason. Throws only ENOENT. */
export function readFileBounded(
  path: string,
  options: BoundedReadOptions & { identify: true },
): BoundedRead<BigIntStats>;
export function readFileBounded(path: string, options?: BoundedReadOptions & { identify?: false }): BoundedRead;
export function readFileBounded(path: string, options?: BoundedReadOptions): BoundedRead<Stats | BigIntStats>;
export function readFileBounded(path: string, options: BoundedReadOptions = {}): BoundedRead<Stats | BigIntStats> {
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
    // One fstat, which also gives the identity when it is asked for: of the descriptor read, so a file
    // replaced at the path meanwhile cannot lend the bytes another identity. Taken before the read: a file
    // changed in place while it is read (never by fed, which replaces) has another identity by the next
    // look — unless a write of the same length was already under way, whose times the filesystem may have
    // set before its bytes: that bytes and identity match is only sure of files replaced, as fed's are.
    const stat = options.identify ? fstatSync(fd, { bigint: true }) : fstatSync(fd);
    const size = Number(stat.size);
    if (!stat.isFile()) return { ok: false, problem: `${kindOf(stat)}, not a regular file`, stat };
    if (size > maxBytes)
      return { ok: false, problem: `the file is ${size} bytes, over the ${maxBytes}-byte limit`, stat };
    // Read at most one byte past the limit: a file growing while it is read cannot make this unbounded.
    // A size of 0 may be unknown rather than empty (procfs: /proc/version): then it is read to its end.
    const sizeKnown = size > 0;
    let buffer = Buffer.allocUnsafe(Math.min(sizeKnown ? size : 4096, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      length += n;
      // A regular file of known size takes one read: it gives fewer bytes than asked only at its end (no read
      // just to be told 0), and the byte past its size only when it grew meanwhile.
      if (n === 0 || length > maxBytes || sizeKnown) break;
      if (length === buffer.length) {
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
    const changed = options.changedAfterRead ? fstatSync(fd, { bigint: true }) : stat;
    const identified = options.identify
      ? {
          identity: fileIdentity(stat as BigIntStats),
          changedMs: Number((changed as BigIntStats).ctimeNs / 1_000_000n),
        }
      : {};
    return { ok: true, bytes: buffer.subarray(0, length), stat, ...identified };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, problem: `cannot be read (${code ?? (error as Error).message})`, code };
  } finally {
    closeSync(fd);
  }
}

/**
 * Parts of a file, read without reading it whole but as readFileBounded reads: never through a link at the
 * path (`noFollow`), never blocking, and only from a regular file within `maxBytes`. `pick` gets the file's
 * size and a reader of byte ranges, which gives undefined for a range outside the file (asked for, or
 * found when it shrank meanwhile) and allocates nothing for it. Undefined when the file is not a regular
 * file within the bounds or cannot be read; throws only ENOENT, and whatever `pick` itself throws.
 */
export function readFileParts<T>(
  path: string,
  options: Pick<BoundedReadOptions, 'maxBytes' | 'noFollow'>,
  pick: (read: (start: number, length: number) => Buffer | undefined, size: number) => T | undefined,
): T | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw error;
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > (options.maxBytes ?? DEFAULT_MAX_FILE_BYTES)) return undefined;
    return pick((start, length) => {
      if (start < 0 || length < 0 || start + length > stat.size) return undefined;
      const bytes = Buffer.allocUnsafe(length);
      return length === 0 || readSync(fd, bytes, 0, length, start) === length ? bytes : undefined;
    }, stat.size);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === undefined) throw error;
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** What a file that is not a regular file is, for messages ("a named pipe (FIFO)"). */
export function kindOf(stat: Stats | BigIntStats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'a special file';
}
