import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLastRun } from 'fed/testing';
import { agentPidFile } from '../helpers/agent-pids.js';
import { startServe, type ServeProcess } from '../helpers/fed-serve.js';
import { isAlive, waitFor } from '../helpers/fixture-process.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { fedOn, sendMission, serveHost } from '../helpers/serve-host.js';
import { tcpRelay } from '../helpers/tcp-relay.js';
import { useNatsServer } from '../helpers/use-nats-server.js';

const SUITE =
  'fencing: a host that may be taken for lost stops its agent, and leaves the team to the host that took it';

/**
 * Timings that leave room to fence: a host unheard for 8 s is lost, and a heartbeat unwritten for 1 s
 * (8 s less the agent's stop, 5 s grace and a second, and a second's margin) stops the agents of its host.
 */
const FENCED = { heartbeat: '500ms', hostLostAfter: '8s', failover: 'auto' };
/** Too short to fence (the agents' stop takes up to 6 s): a host's agents run on however long it is unheard. */
const UNFENCED = { heartbeat: '500ms', hostLostAfter: '2s', failover: 'auto' };

/**
 * beta serving team docs-b and gamma failing over, `serve` the timings of both; beta reaches the server
 * through `betaEnv`. Returns once beta's agent has taken its first step (the lifecycle at `scanning`).
 */
async function twoHosts(direct: NodeJS.ProcessEnv, betaEnv: NodeJS.ProcessEnv, federation: string, serve: object) {
  const fed = fedOn(direct);
  // Every agent of the team, on either host, appends its pid there.
  const agents = agentPidFile('docs-b');
  const beta = await serveHost(betaEnv, federation, 'beta', fakeAgent('one-at-a-time'), serve);
  const gamma = await serveHost(direct, federation, 'gamma', fakeAgent('one-at-a-time'), serve);
  await fed(beta, ['team', 'onboard', 'docs-b']);
  const betaServer = startServe(beta, [], { ...betaEnv, AGENT_PID_FILE: agents.file });
  const gammaServer = startServe(gamma, [], { ...direct, AGENT_PID_FILE: agents.file });
  await Promise.all([betaServer.waitForEvent('started'), gammaServer.waitForEvent('started')]);
  await sendMission(fed, gamma, 'docs-b');
  const state = async () =>
    (JSON.parse(await fed(gamma, ['team', 'show', 'docs-b', '--json'])) as { lifecycle: { state: string } }).lifecycle
      .state;
  await waitFor(async () => (await state()) === 'scanning', 60_000, "beta's agent's first step");
  return { beta, betaServer, gammaServer, agents, state, betaAgent: agents.pids()[0]! };
}

/** beta's launch ended as one that no longer held its team: its run interrupted, the team left as it was. */
async function expectLeftAsItWas(beta: string, betaServer: ServeProcess, why: string) {
  const ended = await betaServer.waitForEvent('ended', (e) => e.team === 'docs-b', 60_000);
  expect(ended).toMatchObject({ outcome: 'paused', reason: expect.stringContaining(why) });
  expect(ended.state).not.toBe('paused');
  expect(readLastRun(join(beta, '.fed', 'teams', 'docs-b'))).toMatchObject({
    outcome: 'interrupted',
    reason: expect.stringContaining(why),
  });
}

/** gamma's agent, `pid`, runs on, its step applied (never refused by a pause beta wrote). */
async function expectGammaRunsOn(state: () => Promise<string>, pid: number) {
  await waitFor(async () => (await state()) === 'distilling', 30_000, "gamma's agent's step");
  expect(isAlive(pid)).toBe(true);
}

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('a host cut off from the server stops its agent before the other may take the team over, and never pauses it there', async () => {
    const direct = { FED_NATS_URL: server().url };
    // beta reaches the server only through a relay the test cuts: a partition of beta alone.
    const relay = await tcpRelay(server().port);
    const viaRelay = { FED_NATS_URL: `nats://127.0.0.1:${relay.port}` };
    const { beta, betaServer, gammaServer, agents, state, betaAgent } = await twoHosts(
      direct,
      viaRelay,
      'fenced',
      FENCED,
    );

    relay.cut();
    const cutAt = Date.now();
    await waitFor(() => !isAlive(betaAgent), 20_000, "beta's agent to be stopped");
    const stoppedAt = Date.now();
    const moved = await gammaServer.waitForEvent('moved', (e) => e.team === 'docs-b', 30_000);
    // Fenced: stopped well within hostLostAfter of the cut, before gamma took beta for lost and the team over.
    expect(stoppedAt - cutAt).toBeLessThan(8_000);
    expect(stoppedAt).toBeLessThan(Date.parse(moved.at));
    expect(betaServer.events).toContainEqual(
      expect.objectContaining({ kind: 'warning', text: expect.stringContaining('its agents are stopped (docs-b)') }),
    );
    await waitFor(() => agents.pids().length === 2, 60_000, "gamma's agent to start on docs-b");
    expect(agents.overlap()).toBeUndefined();

    // Mended: beta's launch ends, its run interrupted, the team left as it is — gamma's agent runs on.
    relay.mend();
    await expectLeftAsItWas(beta, betaServer, "host beta's heartbeat was not written");
    await betaServer.waitForEvent('warning', (e) => e.text.includes('heartbeat is written again'));
    await expectGammaRunsOn(state, agents.pids()[1]!);
    // Back in touch, beta finds the team on gamma: it never launches it again.
    expect(betaServer.events.filter((e) => e.kind === 'dispatched')).toHaveLength(1);
  }, 120_000);

  it('a host stalled past hostLostAfter, too short to fence, stops its agent as soon as it finds its team taken over', async () => {
    const direct = { FED_NATS_URL: server().url };
    const { beta, betaServer, gammaServer, agents, state, betaAgent } = await twoHosts(
      direct,
      direct,
      'stalled',
      UNFENCED,
    );
    expect(betaServer.events).toContainEqual(
      expect.objectContaining({ kind: 'warning', text: expect.stringContaining("host beta's agents are not fenced") }),
    );

    // beta's server stalls (its whole process stopped); its agent runs on, and gamma takes the team over.
    betaServer.child.kill('SIGSTOP');
    await gammaServer.waitForEvent('moved', (e) => e.team === 'docs-b', 30_000);
    await waitFor(() => agents.pids().length === 2, 60_000, "gamma's agent to start on docs-b");
    betaServer.child.kill('SIGCONT');
    // Back, beta stops its agent and leaves the team to gamma: no pause, gamma's agent runs on.
    await waitFor(() => !isAlive(betaAgent), 20_000, "beta's agent to be stopped");
    await expectLeftAsItWas(beta, betaServer, 'went to host gamma while its agent ran here');
    await expectGammaRunsOn(state, agents.pids()[1]!);
    expect(betaServer.events.filter((e) => e.kind === 'host-lost' || e.kind === 'moved')).toEqual([]);
  }, 120_000);
});
