import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

export interface ResolvedPath {
  /**
   * `path` with every symbolic link on the way resolved. When it is not there: its nearest existing folder,
   * resolved, with the rest of the path appended — so a link above a missing folder still shows.
   */
  real: string;
  /** `path` itself is there. */
  exists: boolean;
  /** A link to nowhere met on the way up (a mkdir there would follow it). */
  danglingLink?: string;
}

/**
 * Where the folder `path` really is: one realpath when it exists, one more per missing level above it
 * otherwise. Each level is resolved with a trailing slash, so a file where a folder belongs counts as not
 * there (its ENOTDIR): the mkdir that follows names it, and no separate stat is needed to tell.
 */
export function resolvePath(path: string): ResolvedPath {
  for (let dir = path; ; dir = dirname(dir)) {
    let real: string;
    try {
      real = realpathSync.native(dir.endsWith(sep) ? dir : `${dir}${sep}`);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      if (isLink(dir)) return { real: dir, exists: false, danglingLink: dir };
      if (dirname(dir) === dir) return { real: path, exists: false };
      continue;
    }
    return { real: dir === path ? real : join(real, relative(dir, path)), exists: dir === path };
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
