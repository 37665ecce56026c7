import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readCurrentRun, readRunHistory } from 'fed/testing';
import { agentPidFile } from '../helpers/agent-pids.js';
import { startServe, type ServeProcess } from '../helpers/fed-serve.js';
import { isAlive, waitFor } from '../helpers/fixture-process.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { skipWithoutNatsServer, type NatsServer } from '../helpers/nats-server.js';
import { fedOn, sendMission, serveHost } from '../helpers/serve-host.js';
import { useNatsServer } from '../helpers/use-nats-server.js';

const SUITE = 'fed serve stopped while its nats-server is down';

/** Heartbeats short, for the test; failover off: nothing here is to move. */
const SERVE = { heartbeat: '500ms', hostLostAfter: '2s' };

/**
 * How long a stop may take once its grace is over while the server is down: fed's own bounded waits (the
 * launches' wrap-up, the agents' stop, the last heartbeat), a few seconds each — never the outage's length
 * (it lasts past the stop) nor the 60 s each write would retry for.
 */
const STOP_BOUND_MS = 30_000;

/** The team's lifecycle state, as `fed team show` reads it. */
async function lifecycleState(fed: ReturnType<typeof fedOn>, root: string, team: string): Promise<string> {
  return (JSON.parse(await fed(root, ['team', 'show', team, '--json'])) as { lifecycle: { state: string } }).lifecycle
    .state;
}

/** SIGTERM the server (`times` times: the second once it says it is stopping); how long it took to exit. */
async function stopServer(serve: ServeProcess, times: 1 | 2): Promise<{ code: number | null; tookMs: number }> {
  const asked = Date.now();
  serve.child.kill('SIGTERM');
  if (times === 2) {
    await serve.waitForEvent('stopping');
    serve.child.kill('SIGTERM');
  }
  await waitFor(
    () => serve.child.exitCode !== null || serve.child.signalCode !== null,
    2 * STOP_BOUND_MS,
    `fed serve to exit on SIGTERM (it said: ${JSON.stringify(serve.events.slice(-4))})`,
  );
  const code = await serve.exited;
  return { code, tookMs: Date.now() - asked };
}

/** The nats-server down until the returned function starts it again — or the test ends, for the next test. */
async function outage(server: NatsServer): Promise<() => Promise<void>> {
  await server.kill();
  let back = false;
  const restart = async () => {
    if (back) return;
    back = true;
    await server.start();
  };
  onTestFinished(restart);
  return restart;
}

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('stops within seconds — never waits for the server to come back — the host left to be found lost', async () => {
    const env = { FED_NATS_URL: server().url };
    const root = await serveHost(env, 'outage', 'solo', fakeAgent('complete'), SERVE);
    const serve = startServe(root, [], env);
    await serve.waitForEvent('started');
    await server().kill();
    // What it writes now (a heartbeat, the record saying it stopped) is held until the server is back.
    const { code, tookMs } = await stopServer(serve, 1);
    expect(code, serve.stderr()).toBe(0);
    expect(serve.events.some((e) => e.kind === 'stopped')).toBe(true);
    // Bounded by fed's own waits (a few seconds each), not by the outage, which lasts past the test.
    expect(tookMs).toBeLessThan(STOP_BOUND_MS);
  }, 120_000);
});

describe.skipIf(skipWithoutNatsServer(SUITE))(`${SUITE}, with agents running`, () => {
  const server = useNatsServer();

  it("stops its agent within seconds of the grace, leaves the run's end owed rather than saying the team paused, and the next start finishes it", async () => {
    const env = { FED_NATS_URL: server().url };
    const fed = fedOn(env);
    const agents = agentPidFile('agents');
    const root = await serveHost(env, 'owed', 'solo', fakeAgent('one-at-a-time'), SERVE);
    await fed(root, ['team', 'onboard', 'docs']);
    // The monitoring cycle every second: one is at work, its reads held, when the server is stopped.
    const serve = startServe(root, ['--grace', '1s', '--monitor-every', '1s'], { ...env, AGENT_PID_FILE: agents.file });
    await serve.waitForEvent('started');
    await sendMission(fed, root, 'docs');
    await waitFor(async () => (await lifecycleState(fed, root, 'docs')) === 'scanning', 60_000, 'the agent to work');

    const restart = await outage(server());
    const { code, tookMs } = await stopServer(serve, 1);
    expect(code, serve.stderr()).toBe(0);
    expect(tookMs, JSON.stringify(serve.events)).toBeLessThan(STOP_BOUND_MS);
    // Its agent stopped before it exited, not left to run on its own.
    expect(agents.pids().filter(isAlive)).toEqual([]);
    // Nothing paused the team (its lifecycle could not be written): its run's end is owed, which is said.
    expect(serve.events.find((e) => e.kind === 'stopped')).toMatchObject({ paused: [], owed: ['docs'] });
    const workspace = join(root, '.fed', 'teams', 'docs');
    expect(readCurrentRun(workspace)).toBeDefined();

    // Back, with an agent that finishes: the next start records the cut run and goes on with the work it owed.
    await restart();
    const config = join(root, 'federate.config.json');
    writeFileSync(
      config,
      JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), agentCommand: fakeAgent('complete') }),
    );
    const next = startServe(root, [], env);
    expect(await next.waitForEvent('dispatched')).toMatchObject({ team: 'docs', work: 'owed' });
    expect(await next.waitForEvent('ended')).toMatchObject({ team: 'docs', outcome: 'complete' });
    expect((await stopServer(next, 1)).code).toBe(0);
    expect(readRunHistory(workspace).map((run) => run.outcome)).toEqual(['interrupted', 'completed']);
  }, 120_000);

  it('a second SIGTERM cuts a long grace short: two agents stopped and both teams owed within seconds', async () => {
    const env = { FED_NATS_URL: server().url };
    const fed = fedOn(env);
    const agents = agentPidFile('agents');
    const root = await serveHost(env, 'twice', 'solo', fakeAgent('one-at-a-time'), SERVE);
    for (const team of ['core', 'readme']) await fed(root, ['team', 'onboard', team]);
    const serve = startServe(root, ['--grace', '10m', '--capacity', '2'], { ...env, AGENT_PID_FILE: agents.file });
    await serve.waitForEvent('started');
    for (const team of ['core', 'readme']) await sendMission(fed, root, team);
    await waitFor(() => agents.pids().length === 2, 60_000, 'both agents to start');

    await outage(server());
    const { code, tookMs } = await stopServer(serve, 2);
    expect(code, serve.stderr()).toBe(0);
    expect(tookMs, JSON.stringify(serve.events)).toBeLessThan(STOP_BOUND_MS);
    expect(agents.pids().filter(isAlive)).toEqual([]);
    const stopped = serve.events.find((e) => e.kind === 'stopped');
    expect(stopped).toMatchObject({ paused: [] });
    expect((stopped as { owed: string[] }).owed.sort()).toEqual(['core', 'readme']);
  }, 120_000);
});

const OUTAGE_SUITE = 'a nats-server outage longer than hostLostAfter, two hosts alive all along';

/**
 * Short timings for the test: a host unheard for 2 s is lost; the outage lasts twice that. Too short to
 * fence the agents (jetstream-serve-fencing.test.ts): they run through the outage, so a host taken for lost
 * once it is over would have its team run twice.
 */
const LOST_AFTER_MS = 2_000;
const FAILOVER_SERVE = { heartbeat: '500ms', hostLostAfter: `${LOST_AFTER_MS}ms`, failover: 'auto' };
const OUTAGE_MS = 2 * LOST_AFTER_MS;

describe.skipIf(skipWithoutNatsServer(OUTAGE_SUITE))(OUTAGE_SUITE, () => {
  const server = useNatsServer();

  it('no host judges the other lost once the server is back: no team moves, each agent runs on, one per team', async () => {
    const env = { FED_NATS_URL: server().url };
    const fed = fedOn(env);
    const agents = { alpha: agentPidFile('alpha'), beta: agentPidFile('beta') };
    const agentPids = (host: 'alpha' | 'beta') => agents[host].pids();
    // Each agent takes its first step, then runs on until stopped.
    const alpha = await serveHost(env, 'outage-both', 'alpha', fakeAgent('one-at-a-time'), FAILOVER_SERVE);
    const beta = await serveHost(env, 'outage-both', 'beta', fakeAgent('one-at-a-time'), FAILOVER_SERVE);
    await fed(alpha, ['team', 'onboard', 'docs-a']);
    await fed(beta, ['team', 'onboard', 'docs-b']);
    const servers = {
      alpha: startServe(alpha, [], { ...env, AGENT_PID_FILE: agents.alpha.file }),
      beta: startServe(beta, [], { ...env, AGENT_PID_FILE: agents.beta.file }),
    };
    await Promise.all(Object.values(servers).map((s) => s.waitForEvent('started')));
    await sendMission(fed, alpha, 'docs-a');
    await sendMission(fed, alpha, 'docs-b');
    await waitFor(
      () => agentPids('alpha').length === 1 && agentPids('beta').length === 1,
      60_000,
      'both agents to start',
    );
    // Each agent's first step applied: from then on it only runs, needing nothing of the server.
    const state = (team: string) => lifecycleState(fed, alpha, team);
    await waitFor(
      async () => (await state('docs-a')) === 'scanning' && (await state('docs-b')) === 'scanning',
      60_000,
      "both agents' first step",
    );
    const [alphaAgent, betaAgent] = [agentPids('alpha')[0]!, agentPids('beta')[0]!];

    const restart = await outage(server());
    // The outage itself, longer than hostLostAfter: every record is that old when the server is back.
    await sleep(OUTAGE_MS);
    await restart();
    const back = Date.now();
    // Each host heard from well past a hostLostAfter after the outage: a judgement of either as lost, made
    // at once or put off by a full hostLostAfter, would have been made by then.
    const hosts = async () =>
      (
        JSON.parse(await fed(alpha, ['hosts', '--json'])) as {
          hosts: { name: string; state: string; heardAt: string; teams: string[] }[];
        }
      ).hosts;
    await waitFor(
      async () => (await hosts()).every((h) => Date.parse(h.heardAt) > back + 2 * LOST_AFTER_MS),
      30_000,
      'both hosts heard from after the outage',
    );

    for (const served of Object.values(servers)) {
      expect(
        served.events.filter((e) => e.kind === 'host-lost' || e.kind === 'moved'),
        served.stderr(),
      ).toEqual([]);
      expect(served.events.filter((e) => e.kind === 'dispatched')).toHaveLength(1);
    }
    expect(isAlive(alphaAgent) && isAlive(betaAgent)).toBe(true);
    expect([agents.alpha.overlap(), agents.beta.overlap()]).toEqual([undefined, undefined]);
    // Each team still placed on its host, and both alive.
    expect((await hosts()).map(({ name, state, teams }) => ({ name, state, teams }))).toEqual([
      { name: 'alpha', state: 'alive', teams: ['docs-a'] },
      { name: 'beta', state: 'alive', teams: ['docs-b'] },
    ]);
  }, 120_000);
});
