import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { onboardTeam, openFederation, sendSignal } from 'fed';
import { getTeam, readRegistry, readRunHistory, workspacePaths } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { startServe } from '../helpers/fed-serve.js';
import { killEach, waitFor } from '../helpers/fixture-process.js';
import { fakeAgent, federationWithMission, inDocsWorkspace } from '../helpers/launch-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `fed serve` of the built CLI with fake agents: it launches a team's agent when the team has work, never
 * more at once than its capacity, stops in order on SIGTERM (the team paused, its session resumed by the
 * next start), and after a SIGKILL never lets two agents of one team run at once.
 *
 * The agents run unsandboxed here: what is tested is the server, and a fixture's files (its pid, its times)
 * are shared with the test the way a sandboxed agent's private /tmp would not allow.
 */
async function federation(agentCommand: string, options: { mission?: boolean } = {}): Promise<string> {
  const { root } = await federationWithMission({ mission: options.mission ?? false });
  const file = join(root, 'federate.config.json');
  const written = JSON.parse(readFileSync(file, 'utf8')) as { agent?: object };
  writeFileSync(file, JSON.stringify({ ...written, agentCommand, agent: { ...written.agent, sandbox: false } }));
  return root;
}

const state = async (root: string, team: string) =>
  JSON.parse((await runFed(['--root', root, 'team', 'show', team, '--json'])).stdout) as {
    status: string;
    lifecycle: { state: string };
  };

describe('fed serve', () => {
  it('launches a team for the mission another process sends, and again for a new mission once it is complete', async () => {
    const root = await federation(fakeAgent('complete'));
    const server = startServe(root);
    await server.waitForEvent('started');

    const sent = await runFed([
      '--root',
      root,
      'signal',
      'send',
      '--to',
      'docs',
      '--type',
      'directive',
      '--subject',
      'Document the project',
      '--body',
      'Write deliverable.md',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    const dispatched = await server.waitForEvent('dispatched');
    expect(dispatched).toMatchObject({ team: 'docs', work: 'mission', subject: 'Document the project', running: 1 });
    expect(await server.waitForEvent('ended')).toMatchObject({ team: 'docs', outcome: 'complete', state: 'complete' });

    // A new mission to the complete team starts a new run of its lifecycle, launched as the first was.
    await runFed([
      '--root',
      root,
      'signal',
      'send',
      '--to',
      'docs',
      '--type',
      'directive',
      '--subject',
      'Now the API',
      '--body',
      'Cover the API.',
    ]);
    expect(await server.waitForEvent('dispatched', (e) => e.work === 'new-mission')).toMatchObject({
      subject: 'Now the API',
    });
    await server.waitForEvent('ended', () => server.events.filter((x) => x.kind === 'ended').length === 2);
    expect(server.events.filter((e) => e.kind === 'ended').map((e) => (e as { outcome: string }).outcome)).toEqual([
      'complete',
      'complete',
    ]);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.events.at(-1)).toMatchObject({ kind: 'stopped', paused: [] });
    // Nothing was launched twice for one piece of work.
    expect(server.events.filter((e) => e.kind === 'dispatched')).toHaveLength(2);
  }, 120_000);

  it('with capacity 2 and 5 teams with work, never runs 3 agents at once, and runs them all', async () => {
    const root = await federation(fakeAgent('complete-logged'));
    const teams = ['docs', 'api', 'web', 'db', 'ops'];
    for (const team of teams) {
      if (team !== 'docs') await onboardTeam(openFederation(root), { domain: team });
      await sendSignal(openFederation(root), { to: team, type: 'directive', subject: `Document ${team}`, body: 'Go.' });
    }
    const times = join(tempDir(), 'times.jsonl');
    const server = startServe(root, ['--capacity', '2'], { AGENT_TIMES_FILE: times });
    await waitFor(
      () => server.events.filter((e) => e.kind === 'ended').length === teams.length || server.child.exitCode !== null,
      120_000,
      'every team to end',
    );
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    const ended = server.events.filter((e) => e.kind === 'ended');
    expect(ended.map((e) => (e as { team: string }).team).sort()).toEqual([...teams].sort());
    expect(ended.every((e) => (e as { outcome: string }).outcome === 'complete')).toBe(true);
    // The server's own count, and the agents' own start and end times, never more than 2 at once.
    expect(
      Math.max(...server.events.filter((e) => e.kind === 'dispatched').map((e) => (e as { running: number }).running)),
    ).toBe(2);
    // The agents' own times may overlap less on a loaded machine (a launch prepares while the other's agent
    // finishes), never more.
    expect(mostAtOnce(times)).toBeLessThanOrEqual(2);
    expect(server.events.some((e) => e.kind === 'waiting' && e.why.startsWith('for capacity'))).toBe(true);
  }, 180_000);

  it('on SIGTERM lets the agent finish its grace, then pauses the team; the next start resumes its session', async () => {
    const claude = fileURLToPath(new URL('../fixtures/agents/bin/claude', import.meta.url));
    const root = await federation(claude, { mission: true });
    const log = join(tempDir(), 'calls.jsonl');
    const env = { FAKE_SCENARIO: 'until-resumed', FAKE_CLI_LOG: log };
    const first = startServe(root, ['--grace', '1s'], env);
    await first.waitForEvent('dispatched');
    await waitFor(async () => (await state(root, 'docs')).lifecycle.state === 'scanning', 60_000, 'the agent to work');

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.events.find((e) => e.kind === 'stopping')).toMatchObject({ running: ['docs'], graceMs: 1000 });
    expect(first.events.at(-1)).toMatchObject({ kind: 'stopped', paused: ['docs'], owed: [] });
    expect(await state(root, 'docs')).toMatchObject({ status: 'paused', lifecycle: { state: 'paused' } });

    const second = startServe(root, [], env);
    expect(await second.waitForEvent('dispatched')).toMatchObject({ team: 'docs', work: 'resume' });
    expect(await second.waitForEvent('ended')).toMatchObject({ outcome: 'complete', state: 'complete' });
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    // The second run resumed the first one's session, by its id.
    const calls = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { resume: string | null });
    expect(calls).toHaveLength(2);
    expect(calls[0]!.resume).toBeNull();
    const [stopped, resumed] = readRunHistory(getTeam(readRegistry(root), 'docs').location);
    expect(stopped).toMatchObject({ outcome: 'interrupted', stateAfter: 'paused' });
    expect(resumed).toMatchObject({ outcome: 'completed', resumedSessionId: stopped!.sessionId });
    expect(calls[1]!.resume).toBe(stopped!.sessionId);
  }, 180_000);

  it('SIGKILLed mid-run, its next start never runs a second agent beside the first', async () => {
    const root = await federation(fakeAgent('one-at-a-time'), { mission: true });
    const pids = inDocsWorkspace(root, 'agent.pids');
    const agentPids = () =>
      existsSync(pids) ? readFileSync(pids, 'utf8').trim().split('\n').filter(Boolean).map(Number) : [];
    onTestFinished(() => killEach(agentPids()));
    const env = { AGENT_PID_FILE: pids };
    const first = startServe(root, [], env);
    // Mid-run: the agent started and its run recorded (written as the agent starts, not before it: a kill
    // in between leaves a mission to start again, not a run owed).
    const { currentRun } = workspacePaths(getTeam(readRegistry(root), 'docs').location);
    await waitFor(() => agentPids().length === 1 && existsSync(currentRun), 60_000, 'the first agent to start');
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startServe(root, ['--grace', '1s'], env);
    expect(await second.waitForEvent('dispatched')).toMatchObject({ team: 'docs', work: 'owed' });
    await waitFor(() => agentPids().length === 2, 60_000, 'the second agent to start');
    expect(existsSync(`${pids}.overlap`) ? readFileSync(`${pids}.overlap`, 'utf8') : '').toBe('');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 180_000);

  it("refuses the dashboard's --port or --host without --ui, before it starts (they were silently ignored)", async () => {
    const root = await federation(fakeAgent('complete'));
    for (const [option, value] of [
      ['--port', '8000'],
      ['--host', '10.0.0.1'],
    ] as const) {
      const refused = await runFed(['--root', root, 'serve', option, value, '--json']);
      expect(refused).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `fed: ${option} applies to --ui only (add --ui to serve the dashboard there)\n`,
      });
    }
  });

  it('a second fed serve on the same federation and machine is refused, naming the first, whatever its --host-name', async () => {
    const root = await federation(fakeAgent('complete'));
    const server = startServe(root);
    const started = await server.waitForEvent('started');
    const again = await runFed(['--root', root, 'serve']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`fed serve already runs this federation on this machine (pid ${started.pid} on `);
    // Another host name is no other server: on files there is one host, and it would dispatch the same teams.
    const renamed = await runFed(['--root', root, 'serve', '--host-name', 'other', '--json']);
    expect(renamed, renamed.stdout).toMatchObject({ code: 2, stdout: '' });
    expect(renamed.stderr).toContain(`fed serve already runs this federation on this machine (pid ${started.pid} on `);
    // fed doctor says who serves it, and its dashboard port answers a liveness probe with --ui.
    const doctor = JSON.parse((await runFed(['--root', root, 'doctor', '--json'])).stdout) as { servers: object[] };
    expect(doctor.servers).toEqual([
      { host: started.host, pid: started.pid, since: expect.any(String), checked: true },
    ]);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect((await runFed(['--root', root, 'doctor'])).stdout).toContain('fed serve: not running');

    const withUi = startServe(root, ['--ui']);
    const ui = await withUi.waitForEvent('ui');
    const probe = await fetch(new URL('/healthz', ui.url));
    expect([probe.status, await probe.text()]).toEqual([200, 'ok\n']);
    withUi.child.kill('SIGTERM');
    expect(await withUi.exited).toBe(0);
  }, 60_000);
});

/** The most agents that ran at once, from their own start and end times. */
function mostAtOnce(file: string): number {
  const marks = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { what: 'start' | 'end'; at: number })
    // At one instant, an end counts before a start: the two did not overlap.
    .sort((a, b) => a.at - b.at || (a.what === 'end' ? -1 : 1));
  let now = 0;
  let most = 0;
  for (const mark of marks) {
    now += mark.what === 'start' ? 1 : -1;
    most = Math.max(most, now);
  }
  return most;
}
