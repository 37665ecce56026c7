import { basename, dirname, posix } from 'node:path';
import type { FileRecord } from './inventory.js';
import type { Manifest } from './manifests.js';

/**
 * Where execution starts, and how the survey knows: `high` when a manifest declares it (npm
 * `bin`/`main`/`exports`, Python scripts, Cargo `[[bin]]`) or the language's own rule makes it one (Go
 * `package main` with `func main()`, Python `__main__.py`, Cargo's `src/main.rs`, `src/lib.rs` and
 * `src/bin/*.rs`); `medium` when only its name suggests it (`main`, `index`, `cli`…) or it is a Python
 * file with an `if __name__ == "__main__":` block. Files in examples, docs, tests, fixtures and benchmarks
 * never count (the caller passes only the product's files and manifests).
 */
export interface EntryPoint {
  path: string;
  reason: string;
  confidence: 'high' | 'medium';
}

const MAX_ENTRY_POINTS = 24;
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
  const stems = [
    normal,
    unbuilt && posix.join(manifestDir, unbuilt),
    unbuilt && posix.join(manifestDir, 'src', unbuilt),
  ]
    .filter((s): s is string => typeof s === 'string')
    .map((s) => s.replace(/\.(c|m)?js$/, ''));
  for (const stem of stems)
    for (const ext of ['', ...SOURCE_EXTENSIONS]) if (files.has(`${stem}${ext}`)) return `${stem}${ext}`;
  for (const ext of SOURCE_EXTENSIONS) if (files.has(`${normal}/index${ext}`)) return `${normal}/index${ext}`;
  return files.has(normal) ? normal : undefined;
}

/** `pkg.cli:main` → `pkg/cli.py` or `src/pkg/cli.py`. */
function pythonSource(target: string, manifestDir: string, files: ReadonlySet<string>): string | undefined {
  const module = (target.split(':')[0] ?? '').trim().replace(/\./g, '/');
  const candidates = [
    `${module}.py`,
    `${module}/__main__.py`,
    `${module}/__init__.py`,
    `src/${module}.py`,
    `src/${module}/__main__.py`,
    `src/${module}/__init__.py`,
  ];
  return candidates.map((c) => posix.join(manifestDir, c)).find((c) => files.has(c));
}

const CONVENTIONAL_NAMES = new Set(['main', 'index', 'cli', 'app', 'server', 'manage']);

function conventionalEntry(file: FileRecord): boolean {
  if (file.language?.kind !== 'code' || file.path.split('/').length > 3) return false;
  return CONVENTIONAL_NAMES.has(basename(file.path).replace(/\.[^.]+$/, ''));
}

/** Why the language itself makes a file an entry point, if it does. */
function languageRule(
  file: FileRecord,
  cargoDirs: readonly string[],
): { reason: string; confidence: EntryPoint['confidence'] } | undefined {
  if (file.language?.name === 'Go' && file.runsAsProgram)
    return { reason: 'Go `package main` with `func main()`', confidence: 'high' };
  if (basename(file.path) === '__main__.py')
    return { reason: 'Python `__main__.py` (run with `python -m`)', confidence: 'high' };
  if (file.language?.name === 'Rust') {
    for (const dir of cargoDirs) {
      const inside =
        dir === '.' ? file.path : file.path.startsWith(`${dir}/`) ? file.path.slice(dir.length + 1) : undefined;
      if (inside === 'src/main.rs' || inside === 'src/lib.rs' || /^src\/bin\/[^/]+\.rs$/.test(inside ?? ''))
        return { reason: `Cargo convention (${inside}) of ${posix.join(dir, 'Cargo.toml')}`, confidence: 'high' };
    }
  }
  if (file.language?.name === 'Python' && file.runsAsProgram)
    return { reason: 'Python script with an `if __name__ == "__main__":` block', confidence: 'medium' };
  return undefined;
}

export function findEntryPoints(files: readonly FileRecord[], manifests: readonly Manifest[]): EntryPoint[] {
  const paths = new Set(files.map((f) => f.path));
  const found = new Map<string, EntryPoint>();
  const add = (path: string | undefined, reason: string, confidence: EntryPoint['confidence']) => {
    if (path && paths.has(path) && !found.has(path)) found.set(path, { path, reason, confidence });
  };
  for (const manifest of manifests) {
    const dir = dirname(manifest.path);
    for (const { field, name, target } of manifest.entryPoints) {
      const reason = `declared in ${manifest.path} ${field}${name ? ` "${name}"` : ''} (${target})`;
      if (manifest.kind === 'npm') add(npmSource(target, dir, paths), reason, 'high');
      else if (manifest.kind === 'python') add(pythonSource(target, dir, paths), reason, 'high');
      else add(posix.normalize(posix.join(dir, target)), reason, 'high');
    }
  }
  const cargoDirs = manifests.filter((m) => m.kind === 'cargo').map((m) => dirname(m.path));
  const byRule = files.map((file) => ({ file, rule: languageRule(file, cargoDirs) }));
  for (const { file, rule } of byRule) if (rule?.confidence === 'high') add(file.path, rule.reason, 'high');
  for (const { file, rule } of byRule) if (rule?.confidence === 'medium') add(file.path, rule.reason, 'medium');
  for (const file of files) if (conventionalEntry(file)) add(file.path, 'conventional name', 'medium');
  return [...found.values()].slice(0, MAX_ENTRY_POINTS);
}
