import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { workspacePaths, type ServeEvent } from 'fed/testing';
import { agentStarts } from '../helpers/agent-starts.js';
import { startServe, type ServeProcess } from '../helpers/fed-serve.js';
import { isAlive, waitFor } from '../helpers/fixture-process.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { useNatsServer } from '../helpers/use-nats-server.js';
import { fedOn, sendMission, serveHost } from '../helpers/serve-host.js';

const SUITE = "fed serve on many machines: a team's own files kept in JetStream as they change, for any host";

/** Short heartbeats and ack wait, for the test. */
const SERVE = { heartbeat: '500ms', hostLostAfter: '2s', workAckWait: '2s' };
/** What the first agent of the hanging team has written of its deliverable when its host is killed. */
const DRAFT = '# Report\n\nPart one, written before the host was lost.\n';

const workspaceOn = (root: string, team: string) => join(root, '.fed', 'teams', team);
const deliverableOn = (root: string, team: string) => join(workspaceOn(root, team), 'deliverable.md');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The digest of the copy of the team's `name` its workspace on `root` put in the store or took from it last. */
function keptDigest(root: string, team: string, name: string): string | undefined {
  const file = workspacePaths(workspaceOn(root, team)).keptFiles;
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as { files: Record<string, { sha256: string }> }).files[name]?.sha256;
}

const dispatchesOf = (team: string, server: ServeProcess) =>
  server.events.filter((e: ServeEvent) => e.kind === 'dispatched' && e.team === team);

async function stopInOrder(server: ServeProcess): Promise<void> {
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('a host SIGKILLed mid-launch leaves in JetStream what its agent had written; the moved team starts from it, and moved back finds the later files', async () => {
    const env = { FED_NATS_URL: server().url };
    const fed = fedOn(env);
    const { agentEnv, readStarts, killAgent } = agentStarts(env, 'docs', DRAFT);
    const alpha = await serveHost(env, 'kept', 'alpha', fakeAgent('record-start'), SERVE);
    const beta = await serveHost(env, 'kept', 'beta', fakeAgent('record-start'), SERVE);
    await fed(alpha, ['team', 'onboard', 'docs']);
    const alphaServer = startServe(alpha, [], agentEnv);
    const betaServer = startServe(beta, [], agentEnv);
    await Promise.all([alphaServer.waitForEvent('started'), betaServer.waitForEvent('started')]);
    await sendMission(fed, beta, 'docs');

    // The agent writes part of its deliverable and hangs: the copy is kept while it runs, not at its end.
    await waitFor(() => keptDigest(alpha, 'docs', 'deliverable') === sha256(DRAFT), 60_000, 'the draft kept');
    alphaServer.child.kill('SIGKILL');
    killAgent(readStarts()[0]!.pid);
    await alphaServer.exited;
    await waitFor(() => !isAlive(readStarts()[0]!.pid), 10_000, "alpha's agent gone");
    await betaServer.waitForEvent('host-lost', (e) => e.host === 'alpha', 20_000);

    await fed(beta, ['team', 'move', 'docs', '--to', 'beta']);
    expect(await betaServer.waitForEvent('ended', (e) => e.team === 'docs', 120_000)).toMatchObject({
      outcome: 'complete',
    });
    const [, moved] = readStarts();
    expect(moved).toMatchObject({ cwd: expect.stringContaining(beta), found: DRAFT });
    const final = readFileSync(deliverableOn(beta, 'docs'), 'utf8');
    expect(final).not.toBe(DRAFT);

    // Back to alpha, whose workspace still holds the draft: it takes the files beta's launch kept since.
    await stopInOrder(betaServer);
    const back = startServe(alpha, [], agentEnv);
    await back.waitForEvent('started');
    await fed(beta, ['team', 'move', 'docs', '--to', 'alpha']);
    await waitFor(
      () => readFileSync(deliverableOn(alpha, 'docs'), 'utf8') === final,
      30_000,
      "beta's deliverable on alpha",
    );
    // Its run records too, by start: alpha's run cut short, recorded as interrupted (never finished here), and beta's.
    const runsOnAlpha = async () =>
      (JSON.parse(await fed(alpha, ['runs', '--team', 'docs', '--json'])) as { runs: { outcome: string }[] }).runs.map(
        (run) => run.outcome,
      );
    await waitFor(async () => (await runsOnAlpha()).length === 2, 30_000, 'both runs on alpha');
    expect(await runsOnAlpha()).toEqual(['interrupted', 'completed']);
    expect(dispatchesOf('docs', back)).toEqual([]);
    await stopInOrder(back);
  }, 300_000);

  it('an unplaced team whose last host is down: a new directive is run once by another host, from the files kept', async () => {
    const env = { FED_NATS_URL: server().url };
    const fed = fedOn(env);
    const { agentEnv, readStarts } = agentStarts(env, '');
    const alpha = await serveHost(env, 'unplaced-kept', 'alpha', fakeAgent('record-start'), SERVE);
    const beta = await serveHost(env, 'unplaced-kept', 'beta', fakeAgent('record-start'), SERVE);
    await fed(alpha, ['team', 'onboard', 'docs', '--any-host']);
    const alphaServer = startServe(alpha, [], agentEnv);
    await alphaServer.waitForEvent('started');
    await sendMission(fed, alpha, 'docs');
    expect(await alphaServer.waitForEvent('ended', (e) => e.team === 'docs', 120_000)).toMatchObject({
      outcome: 'complete',
    });

    // alpha's machine goes down, its disk with it: nothing of it is readable from here on.
    alphaServer.child.kill('SIGKILL');
    await alphaServer.exited;
    renameSync(alpha, `${alpha}-gone`);
    onTestFinished(() => rmSync(`${alpha}-gone`, { recursive: true, force: true }));
    const betaServer = startServe(beta, [], agentEnv);
    await betaServer.waitForEvent('started');
    await sendMission(fed, beta, 'docs', 'Again');
    expect(await betaServer.waitForEvent('ended', (e) => e.team === 'docs', 120_000)).toMatchObject({
      outcome: 'complete',
    });
    expect(dispatchesOf('docs', betaServer)).toHaveLength(1);
    const starts = readStarts();
    expect(starts).toHaveLength(2);
    // The new run went on from alpha's run records, taken from JetStream (its deliverable kept in the
    // history of the run before, as a new mission does).
    expect(starts[1]!.cwd).toContain(beta);
    expect(JSON.parse(await fed(beta, ['runs', '--team', 'docs', '--json']))).toMatchObject({
      runs: [expect.objectContaining({ outcome: 'completed' }), expect.objectContaining({ outcome: 'completed' })],
    });
    await stopInOrder(betaServer);
  }, 300_000);
});
