import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every entry under `dir` (relative path → type, permission bits and a SHA-256 of the content or the link
 * target), for "byte-identical afterwards" checks. `skip` leaves out paths (relative, `/`-separated) that
 * are expected to change, and everything under them.
 */
export function treeDigest(dir: string, skip: (path: string) => boolean = () => false): Record<string, string> {
  const digest: Record<string, string> = {};
  const walk = (relative: string) => {
    for (const name of readdirSync(join(dir, relative)).sort()) {
      const path = relative ? `${relative}/${name}` : name;
      if (skip(path)) continue;
      const full = join(dir, path);
      const stat = lstatSync(full);
      const mode = (stat.mode & 0o7777).toString(8);
      if (stat.isDirectory()) {
        digest[path] = `dir ${mode}`;
        walk(path);
      } else if (stat.isSymbolicLink()) digest[path] = `link -> ${readlinkSync(full)}`;
      else if (stat.isFile())
        digest[path] = `file ${mode} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`;
      else digest[path] = `special ${stat.mode.toString(8)}`;
    }
  };
  walk('');
  return digest;
}
