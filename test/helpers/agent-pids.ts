import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { killEach } from './fixture-process.js';
import { tempDir } from './temp-dir.js';

/**
 * A file the `one-at-a-time` fake agent appends its pid to (its AGENT_PID_FILE), noting in `<file>.overlap`
 * any agent that wrote there before and was still alive: two agents of one team at once. Every agent in
 * it is killed when the test ends.
 */
export function agentPidFile(name: string): { file: string; pids(): number[]; overlap(): string | undefined } {
  const file = join(tempDir('fed-agent-pids-'), `${name}.pids`);
  const pids = () =>
    existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(Number) : [];
  onTestFinished(() => killEach(pids()));
  const overlap = () => (existsSync(`${file}.overlap`) ? readFileSync(`${file}.overlap`, 'utf8') : undefined);
  return { file, pids, overlap };
}
