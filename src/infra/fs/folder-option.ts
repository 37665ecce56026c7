import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { InvalidInputError } from '../../core/errors.js';

/**
 * The file (anything but a folder) at `path` or at a folder above it, if one stands there. Whatever else
 * stat cannot tell (no permission, a loop) is left to the operation that follows, which names it.
 */
export function fileInTheWay(path: string): string | undefined {
  for (let at = path; ; at = dirname(at)) {
    let stat;
    try {
      stat = statSync(at, { throwIfNoEntry: false });
    } catch (error) {
      // ENOTDIR: a file above `at` — the next level up finds it.
      if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') return undefined;
    }
    if (stat) return stat.isDirectory() ? undefined : at;
    if (dirname(at) === at) return undefined;
  }
}

/**
 * Refuse a folder given in an option (`what`: `--root`, `--out`) when a file stands where it, or a folder
 * above it, would be — the user's slip in naming it. Without this the mkdir or lookup that meets the file
 * says ENOTDIR of a path fed made below it, and "move that file aside" (their /etc/hostname) is no fix.
 */
export function refuseFileForFolder(path: string, what: string, fix: string): void {
  const file = fileInTheWay(path);
  if (file === undefined) return;
  const problem = file === path ? `${what} ${path} names a file` : `${what} ${path}: ${file} is a file`;
  throw new InvalidInputError(`${problem}, not a folder; ${fix}`);
}
