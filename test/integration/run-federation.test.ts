import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFederation, viewLifecycle } from 'fed';
import { getTeam, readRegistry, type RunSummary } from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { waitFor } from '../helpers/fixture-process.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `fed run` end to end on the built CLI, with fake agents (test/fixtures/agents/federation-team.mjs)
 * whose behaviour follows their team's name, outside the sandbox so they can report to a probe folder.
 */
async function federation(teams: readonly string[]): Promise<{ root: string; probe: string; env: NodeJS.ProcessEnv }> {
  const dir = tempDir();
  const root = join(dir, 'fed');
  const probe = join(dir, 'probe');
  mkdirSync(root);
  mkdirSync(probe);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'fed@test');
  git('config', 'user.name', 'fed test');
  writeFileSync(join(root, 'README.md'), '# project\n');
  const env = { FED_PROBE_DIR: probe };
  expect((await runFed(['--root', root, 'init', '--name', 'runs'])).code).toBe(0);
  const config = JSON.parse(readFileSync(join(root, 'federate.config.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(
    join(root, 'federate.config.json'),
    JSON.stringify({ ...config, agentCommand: fakeAgent('federation-team'), agent: { sandbox: false } }, null, 2),
  );
  git('add', '-A');
  git('commit', '-qm', 'project');
  for (const team of teams) {
    expect((await runFed(['--root', root, 'team', 'onboard', team])).code).toBe(0);
    const sent = await runFed([
      '--root',
      root,
      'signal',
      'send',
      '--to',
      team,
      '--type',
      'directive',
      '--subject',
      `Document ${team}`,
      '--body',
      'Write it.',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
  }
  return { root, probe, env };
}

const summaryOf = (stdout: string) => JSON.parse(stdout) as RunSummary;
const lifecycle = (root: string, team: string) =>
  viewLifecycle(openFederation(root), getTeam(readRegistry(root), team));
const statusOf = (root: string, team: string) => getTeam(readRegistry(root), team).status;

describe('fed run', () => {
  it('a launch fed refuses to start is refused, not failed: the team as it was, exit 2 as fed launch; so is a team that cannot be read', async () => {
    const { root, env } = await federation(['docs']);
    // An --agent that cannot run is bad input for every team alike: refused before any starts, as fed serve does.
    for (const [agent, why] of [
      ['', '--agent is empty'],
      ['no-such-agent-xyz', 'cannot start the agent "no-such-agent-xyz": not found on PATH'],
      ['./no/such-agent', 'no such executable; install it, or pass another --agent <command>'],
    ]) {
      for (const command of ['run', 'serve']) {
        const refused = await runFed(['--root', root, command, '--agent', agent!], { env });
        expect(refused.code, refused.stdout + refused.stderr).toBe(2);
        expect(refused.stderr).toContain(why);
        expect(refused.stdout).toBe('');
      }
    }
    expect((await lifecycle(root, 'docs')).state).toBe('preparing');
    // The config's agent command is each team's own (agent.teams.<id>.command may set another): each launch refuses it.
    const configFile = join(root, 'federate.config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(configFile, JSON.stringify({ ...config, agentCommand: 'no-such-agent-xyz' }));
    const result = await runFed(['--root', root, 'run', '--json'], { env });
    expect(result.code, result.stderr).toBe(2);
    const summary = summaryOf(result.stdout);
    expect(summary).toMatchObject({ completed: 0, failed: 0, refused: 1, paused: 0 });
    expect(summary.teams[0]).toMatchObject({
      team: 'docs',
      outcome: 'refused',
      reason: expect.stringContaining('cannot start the agent "no-such-agent-xyz"') as unknown,
    });
    expect((await lifecycle(root, 'docs')).state).toBe('preparing');
    const text = await runFed(['--root', root, 'run'], { env });
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('ran 1 team (at most');
    expect(text.stdout).toContain(': 0 complete, 0 failed, 1 refused, 0 paused');
    // A team whose files cannot be read is skipped, saying why — and the run exits 2, as fed launch refuses it.
    writeFileSync(join(root, '.fed', 'teams', 'docs', '.fed', 'state', 'lifecycle.json'), '{"machineId": "deliv');
    const unreadable = await runFed(['--root', root, 'run', '--json'], { env });
    expect(unreadable.code, unreadable.stderr).toBe(2);
    expect(summaryOf(unreadable.stdout).skipped).toEqual([
      expect.objectContaining({
        team: 'docs',
        unreadable: true,
        reason: expect.stringContaining('its files cannot be read') as unknown,
      }),
    ]);
  });

  it('runs three teams at most two at a time, reports exactly, writes the federation report; a retry completes the failed one', async () => {
    const { root, probe, env } = await federation(['alpha-ok', 'beta-fail', 'gamma-slow']);
    const result = await runFed(['--root', root, 'run', '--parallel', '2', '--json'], { env, timeoutMs: 90_000 });
    expect(result.code, result.stderr).toBe(1);
    const summary = summaryOf(result.stdout);
    expect(summary).toMatchObject({
      parallel: 2,
      maxConcurrent: 2,
      completed: 2,
      failed: 1,
      paused: 0,
      notStarted: 0,
      interrupted: false,
      skipped: [],
    });
    expect(summary.teams.map((t) => [t.team, t.phase, t.outcome, t.state])).toEqual([
      ['alpha-ok', 'done', 'complete', 'complete'],
      ['beta-fail', 'done', 'failed', 'failed'],
      ['gamma-slow', 'done', 'complete', 'complete'],
    ]);
    expect(summary.teams[1]!.reason).toBe(
      'crashed: the agent exited with code 4 (in state preparing, before the lifecycle was complete)',
    );
    // Never more than two agents at once, as each agent saw when it started.
    const starts = readFileSync(join(probe, 'starts.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => Number(l.split(' ')[1]));
    expect(starts).toHaveLength(3);
    expect(Math.max(...starts)).toBeLessThanOrEqual(2);

    // Every deliverable team is done (complete or failed): meta wrote the report, and it passes the check.
    expect(summary.report).toBe(join(root, 'federation-report.md'));
    const report = readFileSync(summary.report!, 'utf8');
    expect(report).toContain('## Team beta-fail');
    expect(report).toContain('meta -->|"1 directive"| t2');
    expect(report).toContain('fed team retry beta-fail');
    const check = await runFed(['--root', root, 'deliverable', 'check', summary.report!]);
    expect(check.code, check.stdout + check.stderr).toBe(0);

    // The monitor does not call the failed team healthy; retry starts a second run with the same mission.
    const monitor = await runFed(['--root', root, 'monitor', '--json'], { env });
    const beta = (
      JSON.parse(monitor.stdout) as { teams: { team: string; healthy: boolean; reasons: string[] }[] }
    ).teams.find((t) => t.team === 'beta-fail')!;
    expect(beta.healthy).toBe(false);
    expect(beta.reasons).toContain(
      'failed: crashed: the agent exited with code 4 (in state preparing, before the lifecycle was complete)',
    );
    expect(beta.reasons.some((r) => r.startsWith('last launch did not complete: crashed'))).toBe(true);
    writeFileSync(join(probe, 'fixed'), '');
    const retry = await runFed(['--root', root, 'team', 'retry', 'beta-fail', '--json']);
    expect(retry.code, retry.stderr).toBe(0);
    expect(JSON.parse(retry.stdout)).toEqual({
      team: 'beta-fail',
      run: 2,
      mission: { subject: 'Document beta-fail', body: 'Write it.' },
      missionSentSince: false,
      state: 'preparing',
      since: expect.any(String),
      keptAs: ['.fed/history/run-1'],
    });
    expect((await lifecycle(root, 'beta-fail')).state).toBe('preparing');
    const again = await runFed(['--root', root, 'run', '--json'], { env, timeoutMs: 60_000 });
    expect(again.code, again.stderr).toBe(0);
    const second = summaryOf(again.stdout);
    expect(second.teams.map((t) => [t.team, t.outcome])).toEqual([['beta-fail', 'complete']]);
    expect(second.skipped).toEqual([
      { team: 'alpha-ok', reason: 'already complete' },
      { team: 'gamma-slow', reason: 'already complete' },
    ]);
    const workspace = getTeam(readRegistry(root), 'beta-fail').location;
    expect(existsSync(join(workspace, '.fed', 'history', 'run-1', 'journal.jsonl'))).toBe(true);
    const log = await runFed(['--root', root, 'log', '--team', 'beta-fail']);
    expect(log.stdout).toMatch(/beta-fail +launch ended: failed \(crashed\), now failed/);
    expect(log.stdout).toMatch(/beta-fail +retried: run 2 started with the mission "Document beta-fail"/);
    expect(log.stdout).toMatch(/beta-fail +aggregating → complete {2}DOCUMENT_WRITTEN \(fed event\)/);

    // A second retry of a now complete team is refused; a new mission to it starts a third run, its deliverable kept numbered.
    expect((await runFed(['--root', root, 'team', 'retry', 'beta-fail'])).code).toBe(2);
    await runFed([
      '--root',
      root,
      'signal',
      'send',
      '--to',
      'beta-fail',
      '--type',
      'directive',
      '--subject',
      'Document it again',
      '--body',
      'Shorter.',
    ]);
    const third = summaryOf(
      (await runFed(['--root', root, 'run', '--team', 'beta-fail', '--json'], { env, timeoutMs: 60_000 })).stdout,
    );
    expect(third.teams.map((t) => [t.team, t.outcome])).toEqual([['beta-fail', 'complete']]);
    expect((await lifecycle(root, 'beta-fail')).mission?.subject).toBe('Document it again');
    expect(existsSync(join(workspace, 'deliverable.run-2.md'))).toBe(true);
    expect(existsSync(join(workspace, 'deliverable.md'))).toBe(true);
  }, 240_000);

  it('Ctrl-C pauses every running team; the next run resumes them and completes', async () => {
    const { root, probe, env } = await federation(['one-hang', 'two-hang']);
    const { FED_ROOT: _r, FED_TEAM: _t, ...inherited } = process.env;
    const child = spawn(process.execPath, [FED_BIN, '--root', root, 'run', '--parallel', '2'], {
      env: { ...inherited, FED_TELEMETRY_ENABLED: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await waitFor(
        () => stdout.includes('one-hang: running, scanning') && stdout.includes('two-hang: running, scanning'),
        60_000,
        'both teams scanning',
      );
      child.kill('SIGINT');
      // The running teams were paused, to be resumed: exit 3.
      expect(await exited).toBe(3);
    } finally {
      child.kill('SIGKILL');
    }
    expect(stdout).toContain('interrupted: the running teams were paused; run again to resume them: fed run');
    for (const team of ['one-hang', 'two-hang']) {
      expect(statusOf(root, team)).toBe('paused');
      expect(await lifecycle(root, team)).toMatchObject({ state: 'paused', pausedFrom: 'scanning' });
    }

    writeFileSync(join(probe, 'release'), '');
    const resumed = await runFed(['--root', root, 'run', '--json'], { env, timeoutMs: 60_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(summaryOf(resumed.stdout).teams.map((t) => [t.team, t.resumed, t.outcome])).toEqual([
      ['one-hang', true, 'complete'],
      ['two-hang', true, 'complete'],
    ]);
  }, 180_000);

  it("two fed runs at once: a team's resume and a complete team's new run are made once, by the run that launches it; the other says refused", async () => {
    const { root, probe, env } = await federation(['paused-hang', 'again-ok']);
    // One run, interrupted: paused-hang is paused by its launch (to be resumed), again-ok is complete.
    const { FED_ROOT: _r, FED_TEAM: _t, ...inherited } = process.env;
    const child = spawn(process.execPath, [FED_BIN, '--root', root, 'run', '--parallel', '2'], {
      env: { ...inherited, FED_TELEMETRY_ENABLED: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await waitFor(
        () => stdout.includes('paused-hang: running, scanning') && stdout.includes('again-ok: complete'),
        60_000,
        'paused-hang scanning and again-ok complete',
      );
      child.kill('SIGINT');
      expect(await exited).toBe(3);
    } finally {
      child.kill('SIGKILL');
    }
    const directive = ['signal', 'send', '--to', 'again-ok', '--type', 'directive', '--subject', 'Document it again'];
    expect((await runFed(['--root', root, ...directive])).code).toBe(0);
    writeFileSync(join(probe, 'release'), '');

    const runs = await Promise.all(
      [1, 2].map(() => runFed(['--root', root, 'run', '--json'], { env, timeoutMs: 90_000 })),
    );
    const summaries = runs.map((run) => summaryOf(run.stdout));
    for (const [i, run] of runs.entries()) {
      // A team the other run launched is refused (exit 2), never an error or a failure (exit 1).
      expect([0, 2], run.stdout + run.stderr).toContain(run.code);
      expect(summaries[i]!.failed).toBe(0);
    }
    for (const team of ['paused-hang', 'again-ok']) {
      const outcomes = summaries.flatMap((s) => s.teams.filter((t) => t.team === team).map((t) => t.outcome));
      expect(
        outcomes.filter((outcome) => outcome === 'complete'),
        team,
      ).toHaveLength(1);
      expect(
        outcomes.filter((outcome) => outcome !== 'complete'),
        team,
      ).toEqual(outcomes.length === 2 ? ['refused'] : []);
    }
    const log = async (team: string) =>
      (
        JSON.parse((await runFed(['--root', root, 'log', '--team', team, '--json'])).stdout) as {
          kind: string;
          text: string;
        }[]
      ).map((entry) => `${entry.kind} ${entry.text}`);
    expect((await log('paused-hang')).filter((line) => line.includes('paused → active'))).toHaveLength(1);
    const again = await log('again-ok');
    expect(again.filter((line) => line.startsWith('retried'))).toHaveLength(1);
    expect(again.filter((line) => line.includes('MISSION_ASSIGNED'))).toHaveLength(2);
    expect((await lifecycle(root, 'again-ok')).mission?.subject).toBe('Document it again');
  }, 240_000);

  it('a team paused by hand while it runs is left paused by the next run', async () => {
    const { root, env } = await federation(['held-hang']);
    const running = runFed(['--root', root, 'run'], { env, timeoutMs: 60_000 });
    await waitFor(async () => (await lifecycle(root, 'held-hang')).state === 'scanning', 30_000, 'the team scanning');
    expect((await runFed(['--root', root, 'team', 'pause', 'held-hang'])).code).toBe(0);
    const first = await running;
    expect(first.stdout).toContain('held-hang: paused (paused)');
    const next = await runFed(['--root', root, 'run', '--json'], { env, timeoutMs: 60_000 });
    expect(summaryOf(next.stdout)).toMatchObject({
      teams: [],
      skipped: [{ team: 'held-hang', reason: 'paused by hand (resume it first: fed team resume held-hang)' }],
    });
  }, 120_000);

  it('refuses bad input and teams it cannot run (exit 2), and names why', async () => {
    const { root } = await federation(['solo-ok']);
    expect((await runFed(['--root', root, 'run', '--parallel', '0'])).code).toBe(2);
    const unknown = await runFed(['--root', root, 'run', '--team', 'nobody']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('nobody');
    await runFed(['--root', root, 'team', 'pause', 'solo-ok']);
    const paused = await runFed(['--root', root, 'run', '--team', 'solo-ok']);
    expect(paused.code).toBe(2);
    expect(paused.stderr).toContain(
      'team "solo-ok" is not run: paused by hand (resume it first: fed team resume solo-ok)',
    );
  }, 60_000);

  it('skips a team whose files cannot be read, saying why, and runs the others', async () => {
    const { root, env } = await federation(['broken-ok', 'fine-ok']);
    const state = join(getTeam(readRegistry(root), 'broken-ok').location, '.fed', 'state');
    mkdirSync(state, { recursive: true });
    writeFileSync(join(state, 'lifecycle.json'), '{ not json');
    const result = await runFed(['--root', root, 'run', '--json'], { env, timeoutMs: 60_000 });
    // The others ran; the run exits 2, as fed launch refuses a team that cannot be read.
    expect(result.code, result.stderr).toBe(2);
    const summary = summaryOf(result.stdout);
    expect(summary.teams.map((t) => [t.team, t.outcome])).toEqual([['fine-ok', 'complete']]);
    expect(summary.skipped).toEqual([
      {
        team: 'broken-ok',
        reason: expect.stringMatching(/^its files cannot be read: .*lifecycle\.json/),
        unreadable: true,
      },
    ]);
    // A team is not known to be finished: no report yet.
    expect(summary.report).toBeNull();
  }, 60_000);
});

describe('fed team remove', () => {
  it('refuses an active team, removes an archived one with its workspace, and the journal keeps the record', async () => {
    const { root } = await federation(['gone']);
    const location = getTeam(readRegistry(root), 'gone').location;
    const active = await runFed(['--root', root, 'team', 'remove', 'gone']);
    expect(active.code).toBe(2);
    expect(active.stderr).toContain(
      'team "gone" is active; only archived teams are removed — archive it first: fed team archive gone',
    );
    expect(existsSync(location)).toBe(true);
    expect((await runFed(['--root', root, 'team', 'archive', 'gone'])).code).toBe(0);
    const removed = await runFed(['--root', root, 'team', 'remove', 'gone']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(location)).toBe(false);
    expect(readRegistry(root).teams).toEqual([]);
    // Its inbox went with its workspace; meta's copy of its mission and the federation journal keep what
    // happened to it.
    const log = await runFed(['--root', root, 'log', '--team', 'gone', '--json']);
    expect((JSON.parse(log.stdout) as { kind: string }[]).map((e) => e.kind)).toEqual([
      'onboarded',
      'signal-sent',
      'status',
      'removed',
    ]);
  }, 60_000);

  it('refuses a worktree team whose branch is not merged unless --force', async () => {
    const { root } = await federation([]);
    expect((await runFed(['--root', root, 'team', 'onboard', 'wt', '--placement', 'worktree'])).code).toBe(0);
    const location = getTeam(readRegistry(root), 'wt').location;
    writeFileSync(join(location, 'notes.md'), '# notes\n');
    execFileSync('git', ['add', 'notes.md'], { cwd: location });
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'notes'], { cwd: location });
    await runFed(['--root', root, 'team', 'archive', 'wt']);
    const refused = await runFed(['--root', root, 'team', 'remove', 'wt']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('branch fed/wt of team "wt" has commits not merged');
    const forced = await runFed(['--root', root, 'team', 'remove', 'wt', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(existsSync(location)).toBe(false);
    expect(execFileSync('git', ['branch', '--list', 'fed/wt'], { cwd: root, encoding: 'utf8' }).trim()).toBe('');
  }, 60_000);
});

describe('fed log', () => {
  it('--follow prints a transition made by another process', async () => {
    const { root } = await federation(['watched']);
    const { FED_ROOT: _r, FED_TEAM: _t, ...inherited } = process.env;
    const child = spawn(process.execPath, [FED_BIN, '--root', root, 'log', '--follow', '--team', 'watched'], {
      env: { ...inherited, FED_TELEMETRY_ENABLED: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await waitFor(() => stdout.includes('onboarded (deliverable, directory)'), 30_000, 'the log so far');
      expect(stdout).not.toContain('preparing → paused');
      expect((await runFed(['--root', root, 'team', 'pause', 'watched'])).code).toBe(0);
      await waitFor(
        () => stdout.includes('preparing → paused  PAUSE (fed team)') && stdout.includes('status active → paused'),
        30_000,
        'the pause in the followed log',
      );
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);

  it('--since filters by time and refuses what is not a time', async () => {
    const { root } = await federation(['dated']);
    const future = await runFed(['--root', root, 'log', '--since', '2999-01-01T00:00:00Z', '--json']);
    expect(JSON.parse(future.stdout)).toEqual([]);
    const recent = await runFed(['--root', root, 'log', '--since', '1h', '--json']);
    expect((JSON.parse(recent.stdout) as unknown[]).length).toBeGreaterThan(1);
    const bad = await runFed(['--root', root, 'log', '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since: expected an ISO date-time');
  }, 60_000);
});

describe('fed launch --inspect-log', () => {
  it("shows every transition of the team, those applied by the agent's own fed event included", async () => {
    const { root, env } = await federation(['seen-ok']);
    const file = join(root, '..', 'inspect.jsonl');
    const launched = await runFed(['--root', root, 'launch', '--team', 'seen-ok', '--inspect-log', file], {
      env,
      timeoutMs: 60_000,
    });
    expect(launched.code, launched.stderr).toBe(0);
    const records = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            type: string;
            actorId?: string;
            event?: { type: string };
            snapshot?: { value?: string };
          },
      );
    const transitions = records
      .filter((r) => r.type === '@xstate.snapshot' && r.actorId === 'seen-ok' && !r.event?.type.startsWith('xstate.'))
      .map((r) => `${r.event?.type} → ${r.snapshot?.value}`);
    expect(transitions).toEqual([
      'MISSION_ASSIGNED → preparing',
      'PLAN_READY → scanning',
      'SCAN_COMPLETE → distilling',
      'INSIGHTS_READY → aggregating',
      'DOCUMENT_WRITTEN → complete',
    ]);
  }, 60_000);
});
