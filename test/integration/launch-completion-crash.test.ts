import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  getTeam,
  loadTeamLifecycle,
  processIsAlive,
  readCurrentRun,
  readRegistry,
  readRunHistory,
  teamReport,
  workspacePaths,
} from 'fed/testing';
import { type FederationConfig, openFederation, readFederationJournal } from 'fed';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { waitFor } from '../helpers/fixture-process.js';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';

const AGENT = fakeAgent('complete-then-hang');

/** The "deliverable ready" reports in meta's inbox. */
function deliverableReports(root: string): { id: string }[] {
  const inbox = workspacePaths(root).inbox;
  return readdirSync(inbox)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(join(inbox, name), 'utf8')) as { id: string; subject: string })
    .filter((signal) => signal.subject.startsWith('deliverable ready'));
}

/** The team's health as the monitor judges it — read only, without the monitor's own repairs. */
async function docsHealth(root: string, config: FederationConfig) {
  const fed = openFederation(root);
  const zero = { total: 0, unacknowledged: 0 };
  return teamReport(getTeam(readRegistry(root), 'docs'), {
    fed,
    config,
    now: new Date(),
    staleAfterMs: 600_000,
    inbox: zero,
    outbox: zero,
    lifecycles: fed.backend.lifecycles,
  });
}

/**
 * `fed launch` of a deliverable team, SIGKILLed once its agent has done the whole job (the lifecycle is
 * complete) and before the launcher reports it: the agent hangs instead of exiting, and its watchdog stops
 * it when the launcher is gone. Returns once the agent is gone too.
 */
async function launchKilledAfterCompletion(): Promise<{ root: string; config: FederationConfig; runId: string }> {
  const { root, config } = await federationWithMission();
  const team = getTeam(readRegistry(root), 'docs');
  const { FED_ROOT: _root, FED_TEAM: _team, ...env } = process.env;
  const launcher = spawn(process.execPath, [FED_BIN, 'launch', '--team', 'docs', '--agent', AGENT], {
    cwd: root,
    env: { ...env, NO_COLOR: '1', FED_TELEMETRY_ENABLED: 'false' },
    stdio: 'ignore',
  });
  const closed = new Promise((resolve) => launcher.on('close', resolve));
  await waitFor(
    async () => (await loadTeamLifecycle(team, openFederation(root).backend.lifecycles)).snapshot.value === 'complete',
    60_000,
    'the agent to complete the lifecycle',
  );
  launcher.kill('SIGKILL');
  await closed;
  const orphan = readCurrentRun(team.location)!;
  expect(orphan.launcherPid).toBe(launcher.pid);
  await waitFor(() => !processIsAlive(orphan.pid), 30_000, 'the watchdog to stop the agent');

  // What the kill left: the work done, nobody told, and the team unhealthy.
  expect(deliverableReports(root)).toEqual([]);
  expect((await docsHealth(root, config)).healthy).toBe(false);
  return { root, config, runId: orphan.runId };
}

/** Meta got the report once, the run is recorded as completed once, and the team is healthy. */
async function expectFinishedOnce(root: string, config: FederationConfig, runId: string): Promise<void> {
  expect(deliverableReports(root)).toHaveLength(1);
  const location = getTeam(readRegistry(root), 'docs').location;
  expect(readCurrentRun(location)).toBeUndefined();
  const runs = readRunHistory(location).filter((run) => run.runId === runId);
  expect(runs.map((run) => run.outcome)).toEqual(['completed']);
  const ended = (await readFederationJournal(openFederation(root).backend)).filter(
    (r) => r.kind === 'launch-ended' && r.runId === runId,
  );
  expect(ended).toHaveLength(1);
  expect(await docsHealth(root, config)).toMatchObject({ healthy: true, reasons: [] });
}

describe('a launcher killed after its agent completed: what the completion owed is finished once', () => {
  it('by a relaunch of the team (which then refuses: the lifecycle is over)', async () => {
    const { root, config, runId } = await launchKilledAfterCompletion();
    for (let i = 0; i < 2; i++) {
      const relaunch = await runFed(['launch', '--team', 'docs', '--agent', AGENT], { cwd: root });
      expect(relaunch.stderr).toContain('is already complete');
      await expectFinishedOnce(root, config, runId);
    }
  }, 120_000);

  it('by fed monitor', async () => {
    const { root, config, runId } = await launchKilledAfterCompletion();
    for (let i = 0; i < 2; i++) {
      const monitor = await runFed(['monitor', '--json'], { cwd: root });
      expect(monitor.code, monitor.stderr).toBe(0);
      const docs = (JSON.parse(monitor.stdout) as { teams: { team: string; healthy: boolean }[] }).teams.find(
        (t) => t.team === 'docs',
      );
      expect(docs).toMatchObject({ healthy: true });
      await expectFinishedOnce(root, config, runId);
    }
  }, 120_000);

  it('by fed run', async () => {
    const { root, config, runId } = await launchKilledAfterCompletion();
    for (let i = 0; i < 2; i++) {
      await runFed(['run'], { cwd: root });
      await expectFinishedOnce(root, config, runId);
    }
  }, 120_000);
});
