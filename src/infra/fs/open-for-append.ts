import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { NotRegularFileError } from '../../core/errors.js';
import { kindOf } from './read-file-bounded.js';

const DEFAULT_FIX = 'remove it (or move it aside); fed creates a new file';

/**
 * Open `file` for appending, created when missing — the one way fed opens a log or journal it appends to.
 * Anyone (an agent in its workspace) may have put something else at the path: `O_NOFOLLOW` refuses a
 * symbolic link, so fed never appends to the file it points at (a codebase file the agent may only read);
 * `O_NONBLOCK` makes a FIFO fail at once (ENXIO with no reader) instead of hanging the open; and `fstat` of
 * the opened descriptor refuses anything that is still not a regular file (a FIFO with a reader, a device).
 * `O_NONBLOCK` has no effect on a regular file, so the descriptor is an ordinary one (an agent's stderr).
 * Each refusal is a NotRegularFileError naming the path and `fix`.
 */
export function openForAppend(file: string, fix: string = DEFAULT_FIX): number {
  let fd: number;
  try {
    fd = openSync(
      file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      0o644,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new NotRegularFileError(file, 'a symbolic link', fix);
    if (code === 'ENXIO') throw new NotRegularFileError(file, 'a named pipe (FIFO) or socket', fix);
    if (code === 'EISDIR') throw new NotRegularFileError(file, 'a directory', fix);
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new NotRegularFileError(file, kindOf(stat), fix);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}
