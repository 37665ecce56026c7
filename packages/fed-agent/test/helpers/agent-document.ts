import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runAgent, type AgentIo } from '../../src/run-agent.js';
import { checkDeliverable } from 'fed';
import type { LaunchContext } from 'fed/agent';
import { deliverableContext } from '../../../../test/helpers/launch-context.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

const LAUNCHED_AT = '2026-01-31T12:00:00.000Z';

/** A launch context for a deliverable team whose workspace is a fresh temp folder, studying `codebase`. */
export function agentContext(
  codebase: string,
  options: {
    team?: string;
    mission?: { subject: string; body: string };
    state?: string;
    fix?: LaunchContext['fix'];
  } = {},
): LaunchContext {
  const {
    team = 'docs',
    mission = { subject: 'Document the architecture', body: 'For newcomers.' },
    state = 'preparing',
    fix,
  } = options;
  const workspace = join(tempDir(), team);
  mkdirSync(workspace);
  return deliverableContext({
    team,
    root: codebase,
    workspace,
    codebase,
    mission: { signalId: `sig-${team}`, ...mission },
    state,
    launchedAt: LAUNCHED_AT,
    ...(fix ? { fix } : {}),
  });
}

/** Run the built-in agent in-process at a fixed time; `report` stands in for `fed event` (default: ignored). */
export function runBuiltInAgent(context: LaunchContext, report: AgentIo['report'] = async () => '') {
  return runAgent(context, context.team, { report, log: () => {}, now: () => new Date(LAUNCHED_AT) });
}

/** Run the built-in agent on `codebase` for one mission; the document must pass fed's checks. */
export async function writeAgentDocument(
  codebase: string,
  team: string,
  mission: { subject: string; body: string },
  fix?: LaunchContext['fix'],
) {
  const context = agentContext(codebase, { team, mission, ...(fix ? { fix } : {}) });
  const outcome = await runBuiltInAgent(context);
  expect(outcome.status).toBe('complete');
  expect(checkDeliverable(context.deliverablePath).violations).toEqual([]);
  return readFileSync(context.deliverablePath, 'utf8');
}
