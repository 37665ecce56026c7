import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { killEach } from './fixture-process.js';
import { tempDir } from './temp-dir.js';

export interface Start {
  team: string;
  pid: number;
  cwd: string;
  /** The deliverable the agent found in its workspace as it started (null: none). */
  found: string | null;
}

/**
 * The record-start agent's starts (test/fixtures/agents/record-start.mjs), read from the file they append
 * to, and a kill of every agent at the end. `hang`: the team whose first start hangs, having written
 * `draft` as its deliverable.
 */
export function agentStarts(env: NodeJS.ProcessEnv, hang: string, draft?: string) {
  const file = join(tempDir('fed-agent-starts-'), 'starts');
  const readStarts = (): Start[] =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => {
            const [team, pid, cwd, found] = line.split(' ');
            return {
              team: team!,
              pid: Number(pid),
              cwd: cwd!,
              found: found === '-' ? null : Buffer.from(found!, 'base64').toString('utf8'),
            };
          })
      : [];
  const killAgent = (pid: number) => killEach([pid]);
  onTestFinished(() => killEach(readStarts().map((start) => start.pid)));
  return {
    agentEnv: {
      ...env,
      AGENT_START_FILE: file,
      AGENT_HANG_TEAM: hang,
      ...(draft !== undefined && { AGENT_DRAFT: draft }),
    },
    readStarts,
    killAgent,
  };
}
