import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from 'fed/testing';

/**
 * The node processes a command starts, counted by a preload in each (test/fixtures/process-usage.cjs).
 * Each process appends to `process-usage.jsonl` in the folder it started in: a sandboxed agent can write
 * only its team's workspace (its /tmp is its own), the launcher its own folder.
 */
const PRELOAD = join(packageRoot(), 'test/fixtures/process-usage.cjs');
const FILE = 'process-usage.jsonl';

export interface ProcessUsage {
  /** Its script and arguments. */
  argv: string[];
  /** User + system CPU time. */
  cpuMs: number;
  /** When the process started, in ms since the epoch (Node's `performance.timeOrigin`). */
  startedAt: number;
}

/** The environment that counts every node process started under it. */
export const processUsageEnv: NodeJS.ProcessEnv = {
  NODE_OPTIONS: `--require ${PRELOAD}`,
  FED_TEST_PROCESS_USAGE: FILE,
};

/** What the processes that started in `folders` recorded, taken: the next command is counted afresh. */
export function takeProcessUsage(folders: readonly string[]): ProcessUsage[] {
  const files = folders.map((folder) => join(folder, FILE)).filter(existsSync);
  const lines = files.flatMap((file) => readFileSync(file, 'utf8').trim().split('\n'));
  for (const file of files) rmSync(file);
  return lines.map((line) => JSON.parse(line) as ProcessUsage);
}
