import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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

/** fed's commands (`fed`) and their scripts, relative to the package root: package.json says where. */
export function packageBins(): Record<string, string> {
  return manifest().bin;
}

const dependencyBinsCache = new Map<string, Record<string, string>>();

/**
 * The commands of a package fed depends on (the built-in agent, fed-agent: packages/fed-agent) and their
 * scripts' absolute paths, from its package.json's `bin` — found as Node finds fed's dependencies, from
 * fed's package root; none when it is not installed. Read once per process.
 */
export function dependencyBins(name: string): Record<string, string> {
  let bins = dependencyBinsCache.get(name);
  if (bins === undefined) {
    bins = {};
    const file = installedManifest(name);
    if (file !== undefined) {
      const { bin = {} } = JSON.parse(readFileSync(file, 'utf8')) as Partial<Manifest>;
      for (const [command, script] of Object.entries(bin)) bins[command] = join(dirname(file), script);
    }
    dependencyBinsCache.set(name, bins);
  }
  return bins;
}

/** The package.json of the package `name` as fed's own code would import it, or undefined when it is not installed. */
function installedManifest(name: string): string | undefined {
  try {
    return createRequire(join(packageRoot(), 'package.json')).resolve(`${name}/package.json`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}
