import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from 'fed/testing';
import { tempDir } from './temp-dir.js';

/** One script compiled by a process under test: whether it was handed a code cache, and whether V8 rejected it. */
export interface ScriptCompile {
  file: string;
  cached: boolean;
  rejected: boolean;
}

/**
 * test/fixtures/script-cache-probe.cjs for processes under test: `env` preloads it into each (with
 * NODE_OPTIONS, which replaces the caller's), and `compilesOf(file)` gives the compiles of `file` the
 * processes recorded since the last call, then forgets them all.
 */
export function scriptCacheProbe(): { env: NodeJS.ProcessEnv; compilesOf: (file: string) => ScriptCompile[] } {
  const record = join(tempDir(), 'scripts.jsonl');
  return {
    env: {
      NODE_OPTIONS: `--require ${join(packageRoot(), 'test/fixtures/script-cache-probe.cjs')}`,
      FED_TEST_SCRIPT_CACHE: record,
    },
    compilesOf: (file) => {
      const lines = readFileSync(record, 'utf8').trim().split('\n');
      writeFileSync(record, '');
      return lines.map((line) => JSON.parse(line) as ScriptCompile).filter((script) => script.file === file);
    },
  };
}
