import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { agentPidFile } from '../helpers/agent-pids.js';
import { startServe } from '../helpers/fed-serve.js';
import { isAlive, waitFor } from '../helpers/fixture-process.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { fedOn, sendMission, serveHost } from '../helpers/serve-host.js';
import { useNatsServer } from '../helpers/use-nats-server.js';

const SUITE = 'fed serve stopped while its nats-server is down';

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('stops within seconds — never waits for the server to come back — the host left to be found lost', async () => {
    const env = { FED_NATS_URL: server().url };
    const root = await serveHost(env, 'outage', 'solo', fakeAgent('complete'), {
      heartbeat: '500ms',
      hostLostAfter: '2s',
    });
    const serve = startServe(root, [], env);
    await serve.waitForEvent('started');
    await server().kill();
    // What it writes now (a heartbeat, the record saying it stopped) is held until the server is back.
    const asked = Date.now();
    serve.child.kill('SIGTERM');
    const code = await serve.exited;
    const tookMs = Date.now() - asked;
    expect(code, serve.stderr()).toBe(0);
    expect(serve.events.some((e) => e.kind === 'stopped')).toBe(true);
    // Bounded by fed's own waits (a few seconds each), not by the outage, which lasts past the test.
    expect(tookMs).toBeLessThan(30_000);
  }, 120_000);
});

const OUTAGE_SUITE = 'a nats-server outage longer than hostLostAfter, two hosts alive all along';

/**
 * Short timings for the test: a host unheard for 2 s is lost; the outage lasts twice that. Too short to
 * fence the agents (jetstream-serve-fencing.test.ts): they run through the outage, so a host taken for lost
 * once it is over would have its team run twice.
 */
const LOST_AFTER_MS = 2_000;
const SERVE = { heartbeat: '500ms', hostLostAfter: `${LOST_AFTER_MS}ms`, failover: 'auto' };
const OUTAGE_MS = 2 * LOST_AFTER_MS;

describe.skipIf(skipWithoutNatsServer(OUTAGE_SUITE))(OUTAGE_SUITE, () => {
  const server = useNatsServer();

  it('no host judges the other lost once the server is back: no team moves, each agent runs on, one per team', async () => {
    const env = { FED_NATS_URL: server().url };
    const fed = fedOn(env);
    const agents = { alpha: agentPidFile('alpha'), beta: agentPidFile('beta') };
    const agentPids = (host: 'alpha' | 'beta') => agents[host].pids();
    // Each agent takes its first step, then runs on until stopped.
    const alpha = await serveHost(env, 'outage-both', 'alpha', fakeAgent('one-at-a-time'), SERVE);
    const beta = await serveHost(env, 'outage-both', 'beta', fakeAgent('one-at-a-time'), SERVE);
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
    const state = async (team: string) =>
      (JSON.parse(await fed(alpha, ['team', 'show', team, '--json'])) as { lifecycle: { state: string } }).lifecycle
        .state;
    await waitFor(
      async () => (await state('docs-a')) === 'scanning' && (await state('docs-b')) === 'scanning',
      60_000,
      "both agents' first step",
    );
    const [alphaAgent, betaAgent] = [agentPids('alpha')[0]!, agentPids('beta')[0]!];

    await server().stop();
    // The outage itself, longer than hostLostAfter: every record is that old when the server is back.
    await sleep(OUTAGE_MS);
    await server().start();
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
