import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLastRun } from 'fed/testing';
import { skipWithoutBubblewrap } from '../helpers/bubblewrap.js';
import { builtBin, FED_BIN, runFed } from '../helpers/fed-cli.js';
import { processUsageEnv, takeProcessUsage } from '../helpers/process-usage.js';
import { surveyFederation } from '../helpers/launch-federation.js';

/**
 * The processes a `fed run` of the built-in agent starts, counted by a preload in every node process
 * (test/fixtures/process-usage.cjs): per team its agent, and nothing per event — fed-agent reports each
 * event to its launcher, which applies it itself. A `fed event` process per event (four per team) would
 * show here, and so would a watchdog per team: fed-agent ends itself with its launcher
 * (test/integration/builtin-agent-lifeline.test.ts), so none is started over it. Sandboxed, with a
 * network namespace of its own, fed-agent listens on its ports itself and hands them to the launcher: no
 * listener process is started before it, as one is for any other agent.
 */
const TEAMS = ['api', 'docs'];

/** The node processes of one `fed run`, by the script each ran, and each team's network policy in its run. */
async function processesOfRun(config: object): Promise<{ processes: string[]; policies: (string | undefined)[] }> {
  const root = await surveyFederation(TEAMS, config);
  const run = await runFed(['run', '--parallel', '2'], { cwd: root, env: processUsageEnv, timeoutMs: 120_000 });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  expect(run.stdout).toContain(`ran ${TEAMS.length} teams`);
  const workspaces = TEAMS.map((team) => join(root, '.fed', 'teams', team));
  return {
    processes: takeProcessUsage([root, ...workspaces])
      .map((usage) => usage.argv[0]!)
      .sort(),
    policies: workspaces.map((workspace) => readLastRun(workspace)?.network?.policy),
  };
}

describe('fed run with the built-in agent: the processes it starts', () => {
  const expected = (perTeam: readonly string[]) => [FED_BIN, ...TEAMS.flatMap(() => perTeam)].sort();
  const agent = builtBin('fed-agent');

  it.skipIf(skipWithoutBubblewrap('the sandboxed run of fed run with the built-in agent (needs bwrap)'))(
    'per team, the agent alone — no watchdog, no listener before it, no fed process per event (sandboxed, its network a policy)',
    async () => {
      const { processes, policies } = await processesOfRun({});
      expect(processes).toEqual(expected([agent]));
      // Each agent ran in a network namespace of its own, reporting through the ports it handed over itself.
      expect(policies).toEqual(TEAMS.map(() => 'none (no host)'));
    },
    180_000,
  );

  it('the same without the sandbox (agent.sandbox: false), and no network policy', async () => {
    const { processes, policies } = await processesOfRun({ agent: { sandbox: false } });
    expect(processes).toEqual(expected([agent]));
    expect(policies).toEqual(TEAMS.map(() => undefined));
  }, 180_000);
});
