import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root of fed itself, found by walking up from this module: the same code runs from
 * `src/` (tests, tsx) and from `dist/src/` (the installed bin), at different depths.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'fed') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find fed's package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
