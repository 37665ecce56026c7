import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root of fed itself, found by walking up from this module: the same code runs from
 * `src/` (tests, tsx) and from `dist/src/` (the installed bin), at different depths.
 */
let cachedRoot: string | undefined;

export function packageRoot(): string {
  cachedRoot ??= findPackageRoot();
  return cachedRoot;
}

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'fed')
      return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find fed's package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

interface Manifest {
  version: string;
  /** Command name → script, relative to the package root. */
  bin: Record<string, string>;
}

let cachedManifest: Manifest | undefined;

/** Read once per process: `fed --version`, telemetry and the command shims all ask for it. */
function manifest(): Manifest {
  cachedManifest ??= JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as Manifest;
  return cachedManifest;
}

export function packageVersion(): string {
  return manifest().version;
}

/** fed's commands (`fed`, `fed-agent`) and their scripts, relative to the package root: package.json says where. */
export function packageBins(): Record<string, string> {
  return manifest().bin;
}
