import { describe, expect, it } from 'vitest';
import { launchTeam, openFederation, runMonitorCycle, setTeamStatus } from 'fed';
import { clearCurrentRun, getTeam, readRegistry, writeCurrentRun } from 'fed/testing';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';

const docsHealth = async (root: string, config: Parameters<typeof runMonitorCycle>[1]['config']) =>
  (await runMonitorCycle(openFederation(root), { config })).teams.find((t) => t.team === 'docs')!;

describe('fed monitor and the last launch', () => {
  it('never calls a team healthy when its last launch did not complete, until a later launch completes', async () => {
    const { root, config } = await federationWithMission();
    // A crash after progress pauses the team (not failed, not stale): the monitor must still say it is not fine.
    const crashed = await launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('exit-midway'),
      pollMs: 50,
    });
    expect(crashed).toMatchObject({ outcome: 'paused', state: 'paused' });
    const health = await docsHealth(root, config);
    expect(health.healthy).toBe(false);
    expect(
      health.reasons.filter((r) =>
        r.startsWith('last launch did not complete: crashed (the agent exited with code 1), ended '),
      ),
    ).toHaveLength(1);

    // While a new launch runs, the ended one is no longer the last launch.
    const team = getTeam(readRegistry(root), 'docs');
    const last = crashed.lastRun;
    writeCurrentRun(openFederation(root), team, {
      runId: 'r2',
      preset: last.preset,
      command: last.command,
      pid: process.pid,
      processStart: null,
      launcherPid: process.pid,
      sessionId: null,
      resumedSessionId: null,
      stateBefore: 'scanning',
      sandboxed: false,
      transcriptPath: last.transcriptPath,
      promptPath: last.promptPath,
      startedAt: new Date().toISOString(),
    });
    expect((await docsHealth(root, config)).reasons.some((r) => r.startsWith('last launch did not complete'))).toBe(
      false,
    );
    // (Cleared again before the next launch, which would otherwise take it for an orphan to stop.)
    clearCurrentRun(openFederation(root), team);

    await setTeamStatus(openFederation(root), 'docs', { type: 'RESUME' });
    const completed = await launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('complete'),
      pollMs: 50,
      graceMs: 1000,
    });
    expect(completed.outcome).toBe('complete');
    expect(await docsHealth(root, config)).toMatchObject({ healthy: true, reasons: [] });
  }, 90_000);
});
