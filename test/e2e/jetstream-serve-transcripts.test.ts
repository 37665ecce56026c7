import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFederation } from 'fed';
import { workspacePaths } from 'fed/testing';
import { agentStarts } from '../helpers/agent-starts.js';
import { startServe } from '../helpers/fed-serve.js';
import { isAlive, waitFor } from '../helpers/fixture-process.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { useNatsServer } from '../helpers/use-nats-server.js';
import { fedOn, sendMission, serveHost } from '../helpers/serve-host.js';

const SUITE = "fed serve on many machines: a run's transcript kept in JetStream, shown on the host a team moved to";

/** Short heartbeats and ack wait, for the test. */
const SERVE = { heartbeat: '500ms', hostLostAfter: '2s', workAckWait: '2s' };

const workspaceOn = (root: string, team: string) => join(root, '.fed', 'teams', team);

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it("a host SIGKILLed: on the host its teams moved to, fed runs show prints a finished run's transcript and what a cut-short one had written", async () => {
    const env = { FED_NATS_URL: server().url };
    const fed = fedOn(env);
    // api's first launch says its line and hangs (its host is killed); docs's completes.
    const { agentEnv, readStarts, killAgent } = agentStarts(env, 'api');
    const alpha = await serveHost(env, 'transcripts', 'alpha', fakeAgent('record-start'), SERVE);
    const beta = await serveHost(env, 'transcripts', 'beta', fakeAgent('record-start'), SERVE);
    await fed(alpha, ['team', 'onboard', 'docs']);
    await fed(alpha, ['team', 'onboard', 'api']);
    const alphaServer = startServe(alpha, [], agentEnv);
    const betaServer = startServe(beta, [], agentEnv);
    await Promise.all([alphaServer.waitForEvent('started'), betaServer.waitForEvent('started')]);
    await sendMission(fed, beta, 'docs');
    await sendMission(fed, beta, 'api');

    expect(await alphaServer.waitForEvent('ended', (e) => e.team === 'docs', 120_000)).toMatchObject({
      outcome: 'complete',
    });
    const [docsRun] = (
      JSON.parse(await fed(alpha, ['runs', '--team', 'docs', '--json'])) as { runs: { runId: string }[] }
    ).runs;
    const docsTranscript = readFileSync(
      join(workspacePaths(workspaceOn(alpha, 'docs')).runTranscripts, `${docsRun!.runId}.log`),
      'utf8',
    );
    expect(docsTranscript).toContain(`docs started in ${workspaceOn(alpha, 'docs')}`);

    // api's run, in progress: its transcript is kept as it grows, before its launch ends.
    const current = workspacePaths(workspaceOn(alpha, 'api')).currentRun;
    await waitFor(() => existsSync(current), 60_000, "api's run started on alpha");
    const apiRun = JSON.parse(readFileSync(current, 'utf8')) as { runId: string; transcriptPath: string };
    const store = openFederation(beta, { env }).backend.transcripts!;
    await waitFor(
      async () => (await store.get('api', basename(apiRun.transcriptPath))) !== undefined,
      60_000,
      "api's transcript kept while its agent runs",
    );
    alphaServer.child.kill('SIGKILL');
    const hung = readStarts().find((start) => start.team === 'api')!;
    killAgent(hung.pid);
    await alphaServer.exited;
    await waitFor(() => !isAlive(hung.pid), 10_000, "alpha's agent gone");
    await betaServer.waitForEvent('host-lost', (e) => e.host === 'alpha', 20_000);

    await fed(beta, ['team', 'move', 'docs', '--to', 'beta']);
    await fed(beta, ['team', 'move', 'api', '--to', 'beta']);
    expect(await betaServer.waitForEvent('ended', (e) => e.team === 'api', 120_000)).toMatchObject({
      outcome: 'complete',
    });

    // Neither file is in beta's workspaces: each is read from JetStream, and kept there once read.
    const docsOnBeta = join(workspacePaths(workspaceOn(beta, 'docs')).runTranscripts, `${docsRun!.runId}.log`);
    expect(existsSync(docsOnBeta)).toBe(false);
    expect(await fed(beta, ['runs', 'show', docsRun!.runId])).toBe(docsTranscript);
    expect(readFileSync(docsOnBeta, 'utf8')).toBe(docsTranscript);
    expect(await fed(beta, ['runs', 'show', apiRun.runId, '--team', 'api'])).toContain(
      `api started in ${workspaceOn(alpha, 'api')} as pid ${hung.pid}
`,
    );
    betaServer.child.kill('SIGTERM');
    expect(await betaServer.exited).toBe(0);
  }, 300_000);
});
