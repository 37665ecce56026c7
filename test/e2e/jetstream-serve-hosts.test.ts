import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ServeEvent } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { startServe, type ServeProcess } from '../helpers/fed-serve.js';
import { killEach, waitFor } from '../helpers/fixture-process.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { useNatsServer } from '../helpers/use-nats-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { expectEachStepOnce, fedOn, sendMission, serveHost } from '../helpers/serve-host.js';

const SUITE = 'fed serve on many machines: two hosts sharing one nats-server, one lost, its team moved';

/** How often the hosts renew their records here, and when one unheard is lost: short, for the test. */
const SERVE = { heartbeat: '500ms', hostLostAfter: '2s' };

interface Hosts {
  shared: boolean;
  hosts: { name: string; state: string; teams: string[]; running: string[] }[];
}

/** A machine serving as host `name`, with this test's heartbeat. */
const machine = (env: NodeJS.ProcessEnv, federation: string, name: string, agent: string, serve: object = {}) =>
  serveHost(env, federation, name, agent, { ...SERVE, ...serve });

/** Two hosts, alpha and beta, a team on each; alpha's agent takes a first step and hangs, beta's completes. */
async function twoHosts(env: NodeJS.ProcessEnv, federation: string, betaServe: object = {}) {
  const fed = fedOn(env);
  const pids = join(tempDir('fed-agent-pids-'), 'alpha.pids');
  const agentPids = () =>
    existsSync(pids) ? readFileSync(pids, 'utf8').trim().split('\n').filter(Boolean).map(Number) : [];
  // alpha's machine dies in the test: its agent is killed with its server, and by the end in any case.
  const killAgents = () => killEach(agentPids());
  onTestFinished(killAgents);
  const alpha = await machine(env, federation, 'alpha', fakeAgent('one-at-a-time'));
  const beta = await machine(env, federation, 'beta', fakeAgent('complete'), betaServe);
  await fed(alpha, ['team', 'onboard', 'docs-a']);
  await fed(beta, ['team', 'onboard', 'docs-b']);
  const alphaServer = startServe(alpha, [], { ...env, AGENT_PID_FILE: pids });
  const betaServer = startServe(beta, ['--ui'], env);
  await Promise.all([alphaServer.waitForEvent('started'), betaServer.waitForEvent('started')]);
  for (const team of ['docs-a', 'docs-b']) await sendMission(fed, beta, team);
  expect(await betaServer.waitForEvent('ended', (e) => e.team === 'docs-b')).toMatchObject({ outcome: 'complete' });
  await waitFor(() => agentPids().length === 1, 60_000, "alpha's agent to start on docs-a");
  const hosts = async (root: string) => JSON.parse(await fed(root, ['hosts', '--json'])) as Hosts;
  await waitFor(
    async () => (await hosts(beta)).hosts.find((h) => h.name === 'alpha')?.running.includes('docs-a') ?? false,
    30_000,
    "alpha's heartbeat to say docs-a runs there",
  );
  return { fed, alpha, beta, alphaServer, betaServer, killAgents, hosts, agentPids };
}

/** alpha's machine goes down: its server and its agent SIGKILLed, nothing stopped in order. */
async function killMachine(server: ServeProcess, killAgents: () => void): Promise<number> {
  server.child.kill('SIGKILL');
  killAgents();
  await server.exited;
  return Date.now();
}

/** SIGTERM, and its exit code once it has exited — within a minute, or the test fails saying what it told. */
async function stopInOrder(server: ServeProcess): Promise<number | null> {
  server.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`fed serve did not exit on SIGTERM: ${JSON.stringify(server.events.slice(-5))} ${server.stderr()}`),
        ),
      60_000,
    );
  });
  try {
    return await Promise.race([server.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('a SIGKILLed host is shown lost within the heartbeat window; fed team move completes its team on the other host, which the first, back, never runs', async () => {
    const env = { FED_NATS_URL: server().url };
    const { fed, alpha, beta, alphaServer, betaServer, killAgents, hosts } = await twoHosts(env, 'moved');
    const listed = await hosts(alpha);
    expect(listed.hosts).toEqual([
      expect.objectContaining({ name: 'alpha', state: 'alive', teams: ['docs-a'] }),
      expect.objectContaining({ name: 'beta', state: 'alive', teams: ['docs-b'] }),
    ]);
    // Moving a team away from an alive host is refused: its server may be running the agent.
    const early = await runFed(['--root', beta, 'team', 'move', 'docs-a', '--to', 'beta'], { env });
    expect(early.code).toBe(2);
    expect(early.stderr).toContain('host alpha, which is alive');

    const killedAt = await killMachine(alphaServer, killAgents);
    const lost = await betaServer.waitForEvent('host-lost', (e) => e.host === 'alpha', 20_000);
    expect(lost.teams).toEqual(['docs-a']);
    // Lost within the window: hostLostAfter (2 s) and a heartbeat or two of beta's to notice.
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    // Polled: a loss told while alpha was still alive but stalled (a loaded machine) ends at its next heartbeat.
    await expect.poll(async () => (await hosts(beta)).hosts.find((h) => h.name === 'alpha')?.state).toBe('lost');
    // The dashboard's Federation view says so, and "Needs you" holds the team.
    const ui = (await betaServer.waitForEvent('ui')).url;
    const token = new URL(ui).searchParams.get('token')!;
    const api = async (path: string) =>
      (await (await fetch(new URL(path, ui), { headers: { authorization: `Bearer ${token}` } })).json()) as object;
    expect(await api('/api/federation')).toMatchObject({
      hosts: {
        shared: true,
        list: expect.arrayContaining([expect.objectContaining({ name: 'alpha', state: 'lost' })]),
      },
    });
    expect(await api('/api/needs-you')).toMatchObject({
      items: expect.arrayContaining([expect.objectContaining({ kind: 'host-lost', team: 'docs-a' })]),
    });

    expect(await fed(beta, ['team', 'move', 'docs-a', '--to', 'beta'])).toContain(
      'moved docs-a from host alpha to beta',
    );
    expect(await betaServer.waitForEvent('ended', (e) => e.team === 'docs-a')).toMatchObject({
      outcome: 'complete',
      state: 'complete',
    });
    expect(existsSync(join(beta, '.fed', 'teams', 'docs-a', 'deliverable.md'))).toBe(true);
    await expectEachStepOnce(fed, beta, 'docs-a');
    expect(await fed(beta, ['log', '--team', 'docs-a'])).toContain('moved from host alpha to beta');

    // alpha comes back: it serves again, but docs-a is beta's now — a new mission is dispatched there only.
    const back = startServe(alpha, [], env);
    await back.waitForEvent('started');
    await waitFor(
      async () => (await hosts(beta)).hosts.find((h) => h.name === 'alpha')?.state === 'alive',
      20_000,
      'alpha alive again',
    );
    await sendMission(fed, alpha, 'docs-a', 'Again');
    await betaServer.waitForEvent(
      'ended',
      (e) => e.team === 'docs-a' && betaServer.events.filter(isDispatchOf('docs-a')).length === 2,
    );
    expect(back.events.filter(isDispatchOf('docs-a'))).toEqual([]);

    // beta stops in order; its complete team docs-b moves to alpha with its own files, kept in JetStream.
    expect(await stopInOrder(betaServer)).toBe(0);
    await fed(beta, ['team', 'move', 'docs-b', '--to', 'alpha']);
    const deliverable = (root: string) => join(root, '.fed', 'teams', 'docs-b', 'deliverable.md');
    await waitFor(() => existsSync(deliverable(alpha)), 30_000, "docs-b's deliverable on alpha");
    expect(readFileSync(deliverable(alpha), 'utf8')).toBe(readFileSync(deliverable(beta), 'utf8'));
    expect(JSON.parse(await fed(alpha, ['runs', '--team', 'docs-b', '--json']))).toMatchObject({
      runs: [expect.objectContaining({ outcome: 'completed' })],
    });
    expect(await stopInOrder(back)).toBe(0);
    // Stopped in order, a host is stopped, not lost.
    expect((await hosts(beta)).hosts.map((h) => h.state)).toEqual(['stopped', 'stopped']);
  }, 300_000);

  it('with serve.failover "auto", the other host moves the lost host\'s team to itself and completes it', async () => {
    const env = { FED_NATS_URL: server().url };
    const { fed, beta, alphaServer, betaServer, killAgents } = await twoHosts(env, 'failover', { failover: 'auto' });
    await killMachine(alphaServer, killAgents);
    expect(await betaServer.waitForEvent('moved', (e) => e.team === 'docs-a', 20_000)).toMatchObject({
      from: 'alpha',
      to: 'beta',
      by: 'failover',
    });
    expect(await betaServer.waitForEvent('ended', (e) => e.team === 'docs-a')).toMatchObject({ outcome: 'complete' });
    expect(existsSync(join(beta, '.fed', 'teams', 'docs-a', 'deliverable.md'))).toBe(true);
    await expectEachStepOnce(fed, beta, 'docs-a');
  }, 300_000);

  it('with serve.failover "auto", the teams moved here are not said to have lost their workspaces while it makes them', async () => {
    const env = { FED_NATS_URL: server().url };
    const fed = fedOn(env);
    const teams = ['core', 'web', 'docs'];
    const alpha = await machine(env, 'arriving', 'alpha', fakeAgent('complete'));
    const beta = await machine(env, 'arriving', 'beta', fakeAgent('complete'), { failover: 'auto' });
    for (const team of teams) await fed(alpha, ['team', 'onboard', team]);
    const alphaServer = startServe(alpha, [], env);
    const betaServer = startServe(beta, ['--capacity', '3'], env);
    await Promise.all([alphaServer.waitForEvent('started'), betaServer.waitForEvent('started')]);
    alphaServer.child.kill('SIGKILL');
    await alphaServer.exited;
    // Each arrival wakes beta's actors, which find the others' workspaces not made yet: that is no loss.
    for (const team of teams) await betaServer.waitForEvent('moved', (e) => e.team === team, 20_000);
    for (const team of teams) await sendMission(fed, beta, team);
    for (const team of teams)
      expect(await betaServer.waitForEvent('ended', (e) => e.team === team)).toMatchObject({ outcome: 'complete' });
    expect(betaServer.events.filter((e) => e.kind === 'skipped')).toEqual([]);
    expect(await stopInOrder(betaServer)).toBe(0);
  }, 300_000);

  it('a second fed serve of the same working directory under another --host-name is refused: one server per machine', async () => {
    const env = { FED_NATS_URL: server().url };
    const alpha = await machine(env, 'one-per-machine', 'alpha', fakeAgent('complete'));
    const first = startServe(alpha, [], env);
    const started = await first.waitForEvent('started');
    const renamed = await runFed(['--root', alpha, 'serve', '--host-name', 'gamma'], { env });
    expect(renamed.code, renamed.stderr).toBe(2);
    // Named as the first serves (serve.hostName), not by the system's host name.
    expect(renamed.stderr).toContain(
      `fed serve already runs this federation on this machine (pid ${started.pid} on alpha since `,
    );
    // fed doctor names it once, as this root's own server: not again as another host by its heartbeat.
    const doctor = await runFed(['--root', alpha, 'doctor', '--json'], { env });
    expect((JSON.parse(doctor.stdout) as { servers: object[] }).servers).toEqual([
      { host: 'alpha', pid: started.pid, since: expect.any(String), checked: true },
    ]);
    const lines = (await runFed(['--root', alpha, 'doctor'], { env })).stdout
      .split('\n')
      .filter((line) => line.startsWith('fed serve:'));
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^fed serve: running on alpha \\(pid ${started.pid} since [^;]*\\)$`)),
    ]);
    expect(await stopInOrder(first)).toBe(0);
    // The refused server announced no host of its own.
    const hosts = JSON.parse(await fedOn(env)(alpha, ['hosts', '--json'])) as Hosts;
    expect(hosts.hosts.map((h) => h.name)).toEqual(['alpha']);
  }, 120_000);
});

const isDispatchOf = (team: string) => (event: ServeEvent) => event.kind === 'dispatched' && event.team === team;
