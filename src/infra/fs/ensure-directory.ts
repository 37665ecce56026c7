import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fsyncDirectory, type WriteOptions } from './atomic-write.js';

/**
 * `mkdir -p` that survives a crash: every directory that gained a new entry (the parent of the first
 * created directory and each created directory above `dir`) is fsynced, so a file later published and
 * fsynced inside `dir` cannot vanish together with a directory entry that was never made durable.
 */
export function ensureDirectory(dir: string, options: WriteOptions = {}): void {
  let firstCreated: string | undefined;
  try {
    firstCreated = mkdirSync(dir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw notADirectory(dir, error);
    throw code === 'ENOENT' ? realMkdirError(dir, error) : error;
  }
  if (firstCreated === undefined || !(options.durable ?? true)) return;
  for (let parent = dirname(dir); parent.length >= firstCreated.length; parent = dirname(parent))
    fsyncDirectory(parent);
  fsyncDirectory(dirname(firstCreated));
}

/**
 * Recursive mkdir reports EEXIST when a file (not a directory) has the name: said as ENOTDIR, what it is
 * to fed — a file where a directory belongs — so the CLI names the path and the fix, not a stack trace.
 */
function notADirectory(dir: string, cause: unknown): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`, { cause }), {
    code: 'ENOTDIR',
    syscall: 'mkdir',
    path: dir,
  });
}

/**
 * Node's recursive mkdir reports ENOENT for every failure to create a missing level (a read-only or full
 * filesystem included), which would send users looking for a missing folder. Creating the first missing
 * level on its own gives the real reason (EROFS, ENOSPC, EACCES…), naming that path.
 */
function realMkdirError(dir: string, original: unknown): unknown {
  let missing = dir;
  while (dirname(missing) !== missing && !existsSync(dirname(missing))) missing = dirname(missing);
  try {
    mkdirSync(missing);
  } catch (error) {
    return error;
  }
  return original;
}
