import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runAgent } from '../../src/apps/agent/run-agent.js';
import { checkDeliverable } from '../../src/index.js';
import { workspacePaths } from '../../src/core/layout.js';
import type { LaunchContext } from '../../src/core/schema/launch-context.js';
import { tempDir } from './temp-dir.js';

/** Run the built-in agent on `codebase` for one mission; the document must pass fed's checks. */
export async function writeAgentDocument(
  codebase: string,
  team: string,
  mission: { subject: string; body: string },
  fix?: LaunchContext['fix'],
) {
  const workspace = join(tempDir(), team);
  mkdirSync(workspace);
  const context: LaunchContext = {
    team,
    archetype: 'deliverable',
    root: codebase,
    workspace,
    codebase,
    mission: { signalId: `sig-${team}`, ...mission },
    state: 'preparing',
    deliverable: 'deliverable.md',
    deliverablePath: join(workspace, 'deliverable.md'),
    playbookSkillPath: null,
    learningLogPath: workspacePaths(workspace).learningLog,
    launchedAt: '2026-01-31T12:00:00.000Z',
    ...(fix ? { fix } : {}),
  };
  const outcome = await runAgent(context, team, {
    report: async () => '',
    log: () => {},
    now: () => new Date('2026-01-31T12:00:00.000Z'),
  });
  expect(outcome.status).toBe('complete');
  expect(checkDeliverable(context.deliverablePath).violations).toEqual([]);
  return readFileSync(context.deliverablePath, 'utf8');
}
