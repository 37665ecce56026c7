import { basename, dirname, posix } from 'node:path';
import type { FileRecord } from './inventory.js';
import type { Manifest } from './manifests.js';

/** Where execution starts, and how the survey knows: declared in a manifest, or guessed from the name. */
export interface EntryPoint {
  path: string;
  reason: string;
  declared: boolean;
}

const BUILD_DIRS = ['dist/', 'build/', 'lib/', 'out/'];
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/**
 * The source file behind a declared npm target: `dist/src/cli/main.js` was compiled from
 * `src/cli/main.ts` (and `dist/cli.js` usually from `src/cli.ts`), so strip the build folder and try the
 * source extensions where the sources usually are.
 */
function npmSource(target: string, manifestDir: string, files: ReadonlySet<string>): string | undefined {
  const normal = posix.normalize(posix.join(manifestDir, target));
  const relative = manifestDir === '.' ? normal : normal.slice(manifestDir.length + 1);
  const build = BUILD_DIRS.find((dir) => relative.startsWith(dir));
  const unbuilt = build ? relative.slice(build.length) : undefined;
  const stems = [normal, unbuilt && posix.join(manifestDir, unbuilt), unbuilt && posix.join(manifestDir, 'src', unbuilt)]
    .filter((s): s is string => typeof s === 'string')
    .map((s) => s.replace(/\.(c|m)?js$/, ''));
  for (const stem of stems) for (const ext of ['', ...SOURCE_EXTENSIONS]) if (files.has(`${stem}${ext}`)) return `${stem}${ext}`;
  return files.has(normal) ? normal : undefined;
}

/** `pkg.cli:main` → `pkg/cli.py` or `src/pkg/cli.py`. */
function pythonSource(target: string, manifestDir: string, files: ReadonlySet<string>): string | undefined {
  const module = (target.split(':')[0] ?? '').trim().replace(/\./g, '/');
  const candidates = [`${module}.py`, `${module}/__main__.py`, `${module}/__init__.py`, `src/${module}.py`, `src/${module}/__init__.py`];
  return candidates.map((c) => posix.join(manifestDir, c)).find((c) => files.has(c));
}

const CONVENTIONAL_NAMES = new Set(['main', 'index', 'cli', 'app', 'server', '__main__', 'manage', 'lib']);

function conventionalEntry(file: FileRecord): boolean {
  if (file.language?.kind !== 'code' || file.path.split('/').length > 3) return false;
  const stem = basename(file.path).replace(/\.[^.]+$/, '');
  return CONVENTIONAL_NAMES.has(stem) || /^cmd\/[^/]+\/main\.go$/.test(file.path);
}

export function findEntryPoints(files: readonly FileRecord[], manifests: readonly Manifest[]): EntryPoint[] {
  const paths = new Set(files.map((f) => f.path));
  const found = new Map<string, EntryPoint>();
  const add = (path: string | undefined, reason: string, declared: boolean) => {
    if (path && !found.has(path)) found.set(path, { path, reason, declared });
  };
  for (const manifest of manifests) {
    const dir = dirname(manifest.path);
    for (const { field, name, target } of manifest.entryPoints) {
      const reason = `declared in ${manifest.path} ${field}${name ? ` "${name}"` : ''} (${target})`;
      if (manifest.kind === 'npm') add(npmSource(target, dir, paths), reason, true);
      else if (manifest.kind === 'python') add(pythonSource(target, dir, paths), reason, true);
      else add(posix.normalize(posix.join(dir, target)), reason, true);
    }
    if (manifest.kind === 'cargo') add([posix.join(dir, 'src/main.rs'), posix.join(dir, 'src/lib.rs')].find((p) => paths.has(p)), 'Cargo convention (src/main.rs, src/lib.rs)', true);
  }
  for (const file of files) if (!file.test && conventionalEntry(file)) add(file.path, 'conventional name', false);
  return [...found.values()].filter((entry) => paths.has(entry.path)).slice(0, 12);
}
