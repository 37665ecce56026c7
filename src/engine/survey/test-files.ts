import { basename } from 'node:path';
import type { FileRecord } from './inventory.js';
import type { Manifest } from './manifests.js';

/** Where the tests are and what runs them. */
export interface TestSummary {
  files: number;
  /** Top-level folders holding tests, most tests first. */
  folders: { path: string; files: number }[];
  /** The runner, from the manifests (vitest, jest, pytest, go test…), when one is recognisable. */
  runner: string | null;
  /** The command that runs them, when the manifests say. */
  command: string | null;
  /** How the runner is known: declared in a manifest, or guessed from a config file's presence. */
  runnerSource: 'manifest' | 'config-file' | null;
}

const NPM_RUNNERS = ['vitest', 'jest', 'mocha', 'ava', 'tap', '@playwright/test', 'cypress', 'jasmine', 'uvu'];

function runnerOf(
  manifests: readonly Manifest[],
  files: readonly FileRecord[],
): Pick<TestSummary, 'runner' | 'command' | 'runnerSource'> {
  for (const manifest of manifests) {
    if (manifest.kind === 'npm') {
      const deps = [...manifest.devDependencies, ...manifest.dependencies];
      const runner =
        NPM_RUNNERS.find((r) => deps.includes(r)) ??
        (manifest.scripts.test?.includes('node --test') ? 'node:test' : null);
      if (runner || manifest.scripts.test)
        return { runner, command: manifest.scripts.test ? 'npm test' : null, runnerSource: runner ? 'manifest' : null };
    }
    if (manifest.kind === 'python') {
      const usesPytest =
        manifest.tools.includes('pytest') || [...manifest.devDependencies, ...manifest.dependencies].includes('pytest');
      if (usesPytest) return { runner: 'pytest', command: 'pytest', runnerSource: 'manifest' };
    }
    if (manifest.kind === 'go') return { runner: 'go test', command: 'go test ./...', runnerSource: 'manifest' };
    if (manifest.kind === 'cargo') return { runner: 'cargo test', command: 'cargo test', runnerSource: 'manifest' };
  }
  if (files.some((f) => basename(f.path) === 'conftest.py' || basename(f.path) === 'pytest.ini'))
    return { runner: 'pytest', command: 'pytest', runnerSource: 'config-file' };
  return { runner: null, command: null, runnerSource: null };
}

export function summariseTests(files: readonly FileRecord[], manifests: readonly Manifest[]): TestSummary {
  const tests = files.filter((f) => f.language?.kind === 'code' && f.test);
  const byFolder = new Map<string, number>();
  for (const file of tests) {
    const top = file.path.includes('/') ? file.path.split('/')[0]! : '.';
    byFolder.set(top, (byFolder.get(top) ?? 0) + 1);
  }
  const folders = [...byFolder]
    .map(([path, count]) => ({ path, files: count }))
    .sort((a, b) => b.files - a.files || a.path.localeCompare(b.path));
  return { files: tests.length, folders, ...runnerOf(manifests, files) };
}
