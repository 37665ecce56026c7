import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  descendantsOf,
  getTeam,
  type LaunchRun,
  processIsAlive,
  processStartTime,
  readRegistry,
  workspacePaths,
} from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { killEach, waitFor } from '../helpers/fixture-process.js';
import { fakeAgent, federationWithMission, inDocsWorkspace } from '../helpers/launch-federation.js';

/**
 * At most one agent per team (issue 19): `kill -9` of the built `fed launch` must not leave its agent
 * running unsupervised, nor let the next launch start a second agent beside it.
 */
const alive = (pid: number) => processIsAlive(pid);

async function launchAndKill(root: string, options: { stopWatchdog: boolean }) {
  const pidFile = inDocsWorkspace(root, 'agent.pid');
  const { FED_ROOT: _r, FED_TEAM: _t, ...env } = process.env;
  const launcher = spawn(
    process.execPath,
    [FED_BIN, '--root', root, 'launch', '--team', 'docs', '--agent', fakeAgent('hang-record-pid')],
    {
      env: { ...env, FED_TELEMETRY_ENABLED: 'false', AGENT_PID_FILE: pidFile },
      stdio: 'ignore',
    },
  );
  const closed = new Promise((resolve) => launcher.on('close', resolve));
  const current = workspacePaths(getTeam(readRegistry(root), 'docs').location).currentRun;
  await waitFor(
    () => {
      try {
        return readFileSync(pidFile, 'utf8').length > 0 && readFileSync(current, 'utf8').length > 0;
      } catch {
        return false;
      }
    },
    30_000,
    'the agent to start',
  );
  const watchdog = (JSON.parse(readFileSync(current, 'utf8')) as { pid: number; processStart: string }).pid;
  // The pid the agent recorded is its pid in the sandbox's PID namespace; on the host it is the watchdog's
  // descendant running the fixture.
  const agentPid = descendantsOf(watchdog).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('hang-record-pid.mjs');
    } catch {
      return false; // exited meanwhile (a `fed event` of the agent)
    }
  });
  if (agentPid === undefined) throw new Error(`no agent among the descendants of the watchdog ${watchdog}`);
  // Whatever happens in the test, nothing it started outlives it.
  onTestFinished(() => killEach([-watchdog, agentPid]));
  expect(processStartTime(watchdog)).toBe(
    (JSON.parse(readFileSync(current, 'utf8')) as { processStart: string }).processStart,
  );
  if (options.stopWatchdog) killEach([watchdog], 'SIGSTOP');
  launcher.kill('SIGKILL');
  await closed;
  return { agentPid, watchdog };
}

function runs(root: string): LaunchRun[] {
  return readFileSync(workspacePaths(getTeam(readRegistry(root), 'docs').location).runsJournal, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as LaunchRun);
}

describe('fed launch killed with SIGKILL', () => {
  it('the agent stops itself when its launcher dies; the next launch records the run as interrupted and runs one agent', async () => {
    const { root } = await federationWithMission();
    const { agentPid, watchdog } = await launchAndKill(root, { stopWatchdog: false });
    await waitFor(() => !alive(agentPid), 15_000, 'the orphaned agent to stop itself');
    // Its watchdog exits right after it; a launch that came first would find it and stop it itself (the
    // other test), which a loaded machine makes likely.
    await waitFor(() => !alive(watchdog), 15_000, "the orphaned agent's watchdog to exit");
    const goneBy = Date.now();

    const next = await runFed(['--root', root, 'launch', '--team', 'docs', '--agent', fakeAgent('complete'), '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ outcome: 'complete' });
    expect(runs(root).map((r) => r.outcome)).toEqual(['interrupted', 'completed']);
    expect(runs(root)[0]!.reason).toMatch(
      /^its launcher \(pid \d+\) ended without recording the run \(it died or failed\)$/,
    );
    // It ended when its agent last wrote, not when the next launch found it.
    const interrupted = runs(root)[0]!;
    expect(Date.parse(interrupted.endedAt)).toBeLessThanOrEqual(goneBy);
    expect(Date.parse(interrupted.endedAt)).toBeGreaterThanOrEqual(Date.parse(interrupted.startedAt));
  });

  it('an agent still running after its launcher died (its watchdog frozen) is stopped by the next launch before a new one starts', async () => {
    const { root } = await federationWithMission();
    const { agentPid, watchdog } = await launchAndKill(root, { stopWatchdog: true });
    expect(alive(agentPid)).toBe(true);

    const next = await runFed(['--root', root, 'launch', '--team', 'docs', '--agent', fakeAgent('complete')]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(
      new RegExp(
        `warning: stopped the agent of an earlier launch \\(pid ${watchdog}\\) whose launcher \\(pid \\d+\\) died`,
      ),
    );
    expect(alive(agentPid)).toBe(false);
    expect(alive(watchdog)).toBe(false);
    expect(runs(root).map((r) => r.outcome)).toEqual(['interrupted', 'completed']);
    expect(runs(root)[0]!.reason).toMatch(/; the agent was still running and was stopped by the next launch$/);
  });
});
