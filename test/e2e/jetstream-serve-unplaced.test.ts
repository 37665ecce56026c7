import { describe, expect, it } from 'vitest';
import type { ServeEvent } from 'fed/testing';
import { agentStarts } from '../helpers/agent-starts.js';
import { startServe, type ServeProcess } from '../helpers/fed-serve.js';
import { isAlive, waitFor } from '../helpers/fixture-process.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { useNatsServer } from '../helpers/use-nats-server.js';
import { expectEachStepOnce, fedOn, sendMission, serveHost } from '../helpers/serve-host.js';

const SUITE =
  'fed serve on many machines: unplaced teams taken from a JetStream work queue by whichever host has capacity';

/** Short heartbeats and ack wait, for the test: work taken by a killed host goes to the other within seconds. */
const SERVE = { heartbeat: '500ms', hostLostAfter: '2s', workAckWait: '2s' };
const TEAMS = ['docs-a', 'docs-b', 'docs-c'];

/**
 * Two hosts, alpha and beta, serving three unplaced teams onboarded on alpha; every agent appends its
 * start to one file. `hang` names a team whose first agent hangs after its first step.
 */
async function unplacedTeams(env: NodeJS.ProcessEnv, federation: string, hang = '') {
  const fed = fedOn(env);
  // A killed host's agent dies with it, and every agent by the end in any case.
  const { agentEnv, readStarts, killAgent } = agentStarts(env, hang);
  const agent = fakeAgent('record-start');
  const alpha = await serveHost(env, federation, 'alpha', agent, SERVE);
  const beta = await serveHost(env, federation, 'beta', agent, SERVE);
  for (const team of TEAMS) await fed(alpha, ['team', 'onboard', team, '--any-host']);
  const servers = { alpha: startServe(alpha, [], agentEnv), beta: startServe(beta, [], agentEnv) };
  const roots = new Map([
    [servers.alpha, alpha],
    [servers.beta, beta],
  ]);
  await Promise.all([servers.alpha.waitForEvent('started'), servers.beta.waitForEvent('started')]);
  for (const team of TEAMS) await sendMission(fed, beta, team);
  return { fed, alpha, beta, servers, roots, readStarts, killAgent };
}

const dispatchesOf = (team: string, ...servers: ServeProcess[]) =>
  servers.flatMap((server) => server.events.filter((e: ServeEvent) => e.kind === 'dispatched' && e.team === team));

const completed = (server: ServeProcess, team: string) =>
  server.events.some((e) => e.kind === 'ended' && e.team === team && e.outcome === 'complete');

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('three unplaced teams, two hosts: every mission is dispatched exactly once across the hosts', async () => {
    const env = { FED_NATS_URL: server().url };
    const { fed, alpha, servers, roots, readStarts } = await unplacedTeams(env, 'unplaced');
    const { alpha: a, beta: b } = servers;
    await waitFor(
      () => TEAMS.every((team) => completed(a, team) || completed(b, team)),
      120_000,
      'every team complete on one host or the other',
    );
    // The agents' own records: one start per team, in the working directory of the host that dispatched it.
    const starts = readStarts();
    expect(starts.map((s) => s.team).sort()).toEqual(TEAMS);
    for (const team of TEAMS) {
      expect(dispatchesOf(team, a, b)).toHaveLength(1);
      const host = completed(a, team) ? a : b;
      expect(starts.find((s) => s.team === team)?.cwd).toContain(roots.get(host));
      await expectEachStepOnce(fed, alpha, team);
    }
  }, 300_000);

  it('the host that took a team is SIGKILLed mid-run: after the ack wait the other host takes the work and completes it', async () => {
    const env = { FED_NATS_URL: server().url };
    const { fed, alpha, servers, roots, readStarts, killAgent } = await unplacedTeams(env, 'unplaced-kill', 'docs-c');
    await waitFor(() => readStarts().some((s) => s.team === 'docs-c'), 60_000, "docs-c's first agent to start");
    const first = readStarts().find((s) => s.team === 'docs-c')!;
    const [victim, survivor] = first.cwd.startsWith(roots.get(servers.alpha)!)
      ? [servers.alpha, servers.beta]
      : [servers.beta, servers.alpha];
    // Its machine goes down: the server and its agent SIGKILLed.
    victim.child.kill('SIGKILL');
    killAgent(first.pid);
    await victim.exited;
    await waitFor(() => !isAlive(first.pid), 10_000, "docs-c's first agent gone");
    expect(await survivor.waitForEvent('ended', (e) => e.team === 'docs-c', 120_000)).toMatchObject({
      outcome: 'complete',
    });
    const again = readStarts().filter((s) => s.team === 'docs-c');
    expect(again).toHaveLength(2);
    expect(again[1]!.cwd).toContain(roots.get(survivor));
    expect(dispatchesOf('docs-c', survivor)).toHaveLength(1);
    await expectEachStepOnce(fed, alpha, 'docs-c');
  }, 300_000);
});
