import { lstatSync, realpathSync, statSync } from 'node:fs';

/** A folder is at `path`, its links followed; false for anything else or nothing. */
export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A folder is at `path` itself, never a link to one. */
export function isRealFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `path` with its links resolved, or as given when it does not exist (or cannot be read). */
export function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
