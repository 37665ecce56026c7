import { userInfo } from 'node:os';
import type { FileSystemErrno } from '../../core/error-codes.js';
import { FileSystemError } from '../../core/errors.js';

/** What each errno means to a user of fed, what to do about it, and whether it is their input (exit 2). */
const KNOWN: Record<FileSystemErrno, { what: string; fix: string; refusal: boolean }> = {
  ENOSPC: {
    what: 'the disk is full',
    fix: 'free some space on that filesystem and run the command again',
    refusal: false,
  },
  EDQUOT: {
    what: 'the disk quota is exhausted',
    fix: 'free some space or raise the quota and run the command again',
    refusal: false,
  },
  EROFS: {
    what: 'the filesystem is read-only',
    fix: 'remount it read-write (or run fed where it can write) and run the command again',
    refusal: false,
  },
  EMFILE: {
    what: 'this process has too many open files',
    fix: 'raise the limit (ulimit -n) and run the command again',
    refusal: false,
  },
  ENFILE: {
    what: 'the system has too many open files',
    fix: 'close other programs or raise fs.file-max and run the command again',
    refusal: false,
  },
  EIO: {
    what: 'the disk reported an I/O error',
    fix: 'check the disk (dmesg) and run the command again',
    refusal: false,
  },
  EISDIR: { what: 'it is a directory where fed expects a file', fix: 'move the directory aside', refusal: true },
  ENOTDIR: { what: 'a part of it is a file where fed expects a directory', fix: 'move that file aside', refusal: true },
  EACCES: { what: 'permission denied', fix: 'give the user running fed access to it', refusal: true },
  EPERM: { what: 'the operation is not permitted', fix: 'give the user running fed access to it', refusal: true },
  ELOOP: {
    what: 'it is a symbolic link loop (or a link where fed refuses one)',
    fix: 'replace the link by a real file or folder',
    refusal: true,
  },
  ENAMETOOLONG: { what: 'the path is too long', fix: 'use a shorter path', refusal: true },
};

function isKnownErrno(code: string | undefined): code is FileSystemErrno {
  return code !== undefined && Object.hasOwn(KNOWN, code);
}

/**
 * The fed error for a raw filesystem error (Node's ErrnoException, which carries `code`, `syscall` and
 * `path`), or undefined when `error` is not one fed knows how to explain. Used at the CLI's error
 * boundary, so no command ends with a stack trace for a full disk or a directory named like a file.
 */
export function fileSystemErrorFor(error: unknown): FileSystemError | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, path, dest, syscall } = error as NodeJS.ErrnoException & { dest?: string };
  if (!isKnownErrno(code)) return undefined;
  const known = KNOWN[code];
  const where = path === undefined ? 'a file fed needed' : dest === undefined ? path : `${path} → ${dest}`;
  const during = syscall ? ` (${syscall})` : '';
  return new FileSystemError(
    code,
    path,
    `${where}: ${known.what}${during} [${code}]; ${known.fix}`,
    known.refusal,
    error,
  );
}

/**
 * What to do about a file fed may not read (EACCES, EPERM); undefined for any other errno. A caller's own
 * advice is about the file's content (replace it, restore it from a backup), which no new content mends:
 * the fix is its permissions or owner, or a folder above it the user cannot enter — said naming the user
 * fed runs as, the one thing they cannot tell from the path.
 */
export function readPermissionFix(code: string | undefined): string | undefined {
  if (code !== 'EACCES' && code !== 'EPERM') return undefined;
  const user = runningUser();
  return `give ${user}, the user fed runs as, read access to it: chmod or chown it (or a folder above it that ${user} cannot enter), or run fed as a user who can read it`;
}

/** The user this process runs as: its name, or its uid when no name is recorded for it (a container's uid). */
function runningUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}
