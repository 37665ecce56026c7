import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { startServe, type ServeProcess } from '../helpers/fed-serve.js';
import { isAlive, killEach, readPid, waitFor } from '../helpers/fixture-process.js';
import { codebaseRemote, gitIn } from '../helpers/git-federation.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { useNatsServer } from '../helpers/use-nats-server.js';
import { expectEachStepOnce, fedOn, serveHost } from '../helpers/serve-host.js';

const SUITE = "fed serve on many machines: a worktree team moved, its workspace made from the other host's clone";

/** How often the hosts renew their records here, and when one unheard is lost: short, for the test. */
const SERVE = { heartbeat: '500ms', hostLostAfter: '2s' };

/** The team `web`'s work committed on its branch in `host`'s worktree: the worktree, git there, the commit. */
function teamWorkCommitted(host: string) {
  const worktree = join(host, '.fed', 'worktrees', 'web');
  writeFileSync(join(worktree, 'work.txt'), 'the team worked here\n');
  const git = gitIn(worktree);
  git('add', 'work.txt');
  git('commit', '-qm', 'the team worked');
  return { worktree, git, commit: git('rev-parse', 'HEAD') };
}

/**
 * Two machines, alpha and beta, each with its clone of one codebase (a bare repository as their remote),
 * and the worktree team `web` on alpha, which committed work on its branch there and completed a launch:
 * alpha's server recorded that commit as the one the team worked on.
 */
async function worktreeTeamOnAlpha(env: NodeJS.ProcessEnv, federation: string, alphaServe: object, betaServe: object) {
  const fed = fedOn(env);
  const codebase = codebaseRemote();
  const agent = fakeAgent('complete');
  const alpha = await serveHost(env, federation, 'alpha', agent, { ...SERVE, ...alphaServe }, { codebase });
  const beta = await serveHost(env, federation, 'beta', agent, { ...SERVE, ...betaServe }, { codebase });
  await fed(alpha, ['team', 'onboard', 'web', '--placement', 'worktree']);
  // The team's work on its branch, committed before the launch (a deliverable team may not edit code itself).
  const { worktree, commit } = teamWorkCommitted(alpha);
  const alphaServer = startServe(alpha, [], env);
  const betaServer = startServe(beta, [], env);
  await Promise.all([alphaServer.waitForEvent('started'), betaServer.waitForEvent('started')]);
  await direct(fed, alpha, 'Document the web app');
  expect(await alphaServer.waitForEvent('ended', (e) => e.team === 'web')).toMatchObject({ outcome: 'complete' });
  await waitFor(
    async () => (await teamShow(fed, beta)).codebase?.commit === commit,
    30_000,
    "alpha's server to record web's commit",
  );
  return { fed, codebase, alpha, beta, alphaServer, betaServer, commit, worktree };
}

const direct = (fed: ReturnType<typeof fedOn>, root: string, subject: string) =>
  fed(root, ['signal', 'send', '--to', 'web', '--type', 'directive', '--subject', subject, '--body', 'Write it']);

async function teamShow(fed: ReturnType<typeof fedOn>, root: string) {
  const teams = JSON.parse(await fed(root, ['team', 'list', '--json'])) as {
    domainId: string;
    host?: string;
    codebase?: { commit: string; remote?: string };
  }[];
  return teams.find((t) => t.domainId === 'web')!;
}

/** On beta: web's worktree made at the team's commit on its branch, its deliverable kept from alpha, and a new directive completed there. */
async function completesOnBeta(
  fed: ReturnType<typeof fedOn>,
  beta: string,
  betaServer: ServeProcess,
  commit: string,
): Promise<void> {
  const made = join(beta, '.fed', 'worktrees', 'web');
  await waitFor(() => existsSync(join(made, 'deliverable.md')), 30_000, "web's worktree on beta");
  const git = gitIn(made);
  expect(git('rev-parse', 'HEAD')).toBe(commit);
  expect(git('symbolic-ref', '--short', 'HEAD')).toBe('fed/web');
  expect(existsSync(join(made, 'work.txt'))).toBe(true);
  await direct(fed, beta, 'Again, on beta');
  expect(await betaServer.waitForEvent('ended', (e) => e.team === 'web')).toMatchObject({
    outcome: 'complete',
    state: 'complete',
  });
  await expectEachStepOnce(fed, beta, 'web');
}

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('fed team move refuses a commit never pushed, naming it and the remote; pushed, the team moves and completes on the other host', async () => {
    const env = { FED_NATS_URL: server().url };
    const { fed, codebase, beta, alphaServer, betaServer, commit, worktree } = await worktreeTeamOnAlpha(
      env,
      'worktree-moved',
      {},
      {},
    );
    alphaServer.child.kill('SIGKILL');
    await alphaServer.exited;
    await betaServer.waitForEvent('host-lost', (e) => e.host === 'alpha', 20_000);

    const refused = await runFed(['--root', beta, 'team', 'move', 'web', '--to', 'beta'], { env });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`worked on commit ${commit} (branch fed/web)`);
    expect(refused.stderr).toContain(`which no branch or tag of its remote ${codebase} holds`);
    expect(refused.stderr).toContain(`git push ${codebase} ${commit}:refs/heads/fed/web`);
    expect((await teamShow(fed, beta)).host).toBe('alpha');
    expect(existsSync(join(beta, '.fed', 'worktrees', 'web'))).toBe(false);

    // Pushed from the clone that has it (alpha's disk is still there), the move goes through.
    gitIn(worktree)('push', '-q', 'origin', 'fed/web');
    expect(await fed(beta, ['team', 'move', 'web', '--to', 'beta'])).toContain('moved web from host alpha to beta');
    await completesOnBeta(fed, beta, betaServer, commit);
  }, 300_000);

  it('with serve.pushTeamBranches on alpha and failover "auto" on beta, the lost host\'s worktree team moves by itself', async () => {
    const env = { FED_NATS_URL: server().url };
    const { fed, codebase, beta, alphaServer, betaServer, commit } = await worktreeTeamOnAlpha(
      env,
      'worktree-failover',
      { pushTeamBranches: true },
      { failover: 'auto' },
    );
    expect(gitIn(beta)('ls-remote', codebase, 'refs/heads/fed/web')).toBe(`${commit}\trefs/heads/fed/web`);
    alphaServer.child.kill('SIGKILL');
    await alphaServer.exited;
    expect(await betaServer.waitForEvent('moved', (e) => e.team === 'web', 20_000)).toMatchObject({
      from: 'alpha',
      to: 'beta',
      by: 'failover',
    });
    await completesOnBeta(fed, beta, betaServer, commit);
  }, 300_000);

  it('a host SIGKILLed mid-launch after its agent committed: the move takes that commit; moved back, the old worktree goes on from the commits made elsewhere', async () => {
    const env = { FED_NATS_URL: server().url };
    const fed = fedOn(env);
    const codebase = codebaseRemote();
    // alpha's agent commits a file of its own on the team's branch, then hangs.
    const pidFile = join(tempDir('fed-agent-pids-'), 'pids');
    onTestFinished(() => {
      if (existsSync(pidFile)) killEach([readPid(pidFile)]);
    });
    const serve = { ...SERVE, pushTeamBranches: true };
    const alpha = await serveHost(env, 'worktree-back', 'alpha', fakeAgent('commit-then-hang'), serve, { codebase });
    const beta = await serveHost(env, 'worktree-back', 'beta', fakeAgent('complete'), serve, { codebase });
    await fed(alpha, ['team', 'onboard', 'web', '--placement', 'worktree']);
    const onAlpha = gitIn(join(alpha, '.fed', 'worktrees', 'web'));
    const onboarded = onAlpha('rev-parse', 'HEAD');
    const alphaServer = startServe(alpha, [], { ...env, AGENT_PID_FILE: pidFile });
    const betaServer = startServe(beta, [], env);
    await Promise.all([alphaServer.waitForEvent('started'), betaServer.waitForEvent('started')]);
    await direct(fed, alpha, 'Document the web app');

    // The agent committed and works on: its commit is recorded and pushed while the launch runs.
    let midLaunch = onboarded;
    await waitFor(
      async () => {
        midLaunch = onAlpha('rev-parse', 'HEAD');
        return midLaunch !== onboarded && (await teamShow(fed, beta)).codebase?.commit === midLaunch;
      },
      60_000,
      "the commit of alpha's agent recorded mid-launch",
    );
    expect(gitIn(beta)('ls-remote', codebase, 'refs/heads/fed/web')).toBe(`${midLaunch}\trefs/heads/fed/web`);
    alphaServer.child.kill('SIGKILL');
    // As the machine's crash would take it — unless its watchdog, its launcher gone, has stopped it already.
    const agentPid = readPid(pidFile);
    killEach([agentPid]);
    await alphaServer.exited;
    await waitFor(() => !isAlive(agentPid), 10_000, "alpha's agent gone");
    await betaServer.waitForEvent('host-lost', (e) => e.host === 'alpha', 20_000);

    await fed(beta, ['team', 'move', 'web', '--to', 'beta']);
    expect(await betaServer.waitForEvent('ended', (e) => e.team === 'web', 120_000)).toMatchObject({
      outcome: 'complete',
    });
    const worktreeOnBeta = join(beta, '.fed', 'worktrees', 'web');
    const onBeta = gitIn(worktreeOnBeta);
    expect(onBeta('rev-parse', 'HEAD')).toBe(midLaunch);
    // More work on beta's branch, recorded (and pushed) by beta's next launch.
    writeFileSync(join(worktreeOnBeta, 'beta.txt'), 'worked on beta\n');
    onBeta('add', 'beta.txt');
    onBeta('commit', '-qm', 'worked on beta');
    const later = onBeta('rev-parse', 'HEAD');
    await direct(fed, beta, 'Again, on beta');
    await waitFor(async () => (await teamShow(fed, beta)).codebase?.commit === later, 60_000, "beta's commit recorded");

    // Back to alpha, whose worktree is at the commit its agent made: brought forward to beta's.
    betaServer.child.kill('SIGTERM');
    expect(await betaServer.exited).toBe(0);
    const back = startServe(alpha, [], env);
    await back.waitForEvent('started');
    await fed(beta, ['team', 'move', 'web', '--to', 'alpha']);
    await waitFor(() => onAlpha('rev-parse', 'HEAD') === later, 30_000, "alpha's worktree at beta's commit");
    expect(onAlpha('symbolic-ref', '--short', 'HEAD')).toBe('fed/web');
    expect(existsSync(join(alpha, '.fed', 'worktrees', 'web', 'beta.txt'))).toBe(true);
    back.child.kill('SIGTERM');
    expect(await back.exited).toBe(0);
  }, 300_000);

  it('an unplaced worktree team (serve.pushTeamBranches) is run by whichever host takes its work, from the commit the last one pushed', async () => {
    const env = { FED_NATS_URL: server().url };
    const fed = fedOn(env);
    const codebase = codebaseRemote();
    const serve = { ...SERVE, workAckWait: '2s', pushTeamBranches: true };
    const alpha = await serveHost(env, 'worktree-unplaced', 'alpha', fakeAgent('complete'), serve, { codebase });
    const beta = await serveHost(env, 'worktree-unplaced', 'beta', fakeAgent('complete'), serve, { codebase });
    await fed(alpha, ['team', 'onboard', 'web', '--placement', 'worktree', '--any-host']);
    const { commit } = teamWorkCommitted(alpha);

    // alpha alone serves: it takes the work, and its launch records and pushes the commit.
    const alphaServer = startServe(alpha, [], env);
    await alphaServer.waitForEvent('started');
    await direct(fed, alpha, 'Document the web app');
    expect(await alphaServer.waitForEvent('ended', (e) => e.team === 'web', 120_000)).toMatchObject({
      outcome: 'complete',
    });
    expect((await teamShow(fed, alpha)).codebase?.commit).toBe(commit);
    expect(gitIn(alpha)('ls-remote', codebase, 'refs/heads/fed/web')).toBe(`${commit}\trefs/heads/fed/web`);
    alphaServer.child.kill('SIGTERM');
    expect(await alphaServer.exited).toBe(0);

    // Then beta alone: it takes the next work, its worktree made from its own clone at that commit.
    const betaServer = startServe(beta, [], env);
    await betaServer.waitForEvent('started');
    await direct(fed, beta, 'Again, on beta');
    expect(await betaServer.waitForEvent('ended', (e) => e.team === 'web', 120_000)).toMatchObject({
      outcome: 'complete',
      state: 'complete',
    });
    const made = gitIn(join(beta, '.fed', 'worktrees', 'web'));
    expect(made('rev-parse', 'HEAD')).toBe(commit);
    expect(made('symbolic-ref', '--short', 'HEAD')).toBe('fed/web');
    expect(made('show', 'HEAD:work.txt')).toBe('the team worked here');
    expect((await teamShow(fed, beta)).host).toBe('*');
    await expectEachStepOnce(fed, beta, 'web');
    betaServer.child.kill('SIGTERM');
    expect(await betaServer.exited).toBe(0);
  }, 300_000);

  it('a worktree team launched by hand (fed launch) keeps its commit and its files as fed serve does: it moves whole', async () => {
    const env = { FED_NATS_URL: server().url };
    const fed = fedOn(env);
    const codebase = codebaseRemote();
    const alpha = await serveHost(
      env,
      'worktree-by-hand',
      'alpha',
      fakeAgent('complete'),
      { ...SERVE, pushTeamBranches: true },
      { codebase },
    );
    const beta = await serveHost(env, 'worktree-by-hand', 'beta', fakeAgent('complete'), SERVE, { codebase });
    await fed(alpha, ['team', 'onboard', 'web', '--placement', 'worktree']);
    const { commit } = teamWorkCommitted(alpha);
    await direct(fed, alpha, 'Document the web app');
    // No server on alpha: a person launches the team there.
    await fed(alpha, ['launch', '--team', 'web']);
    expect((await teamShow(fed, alpha)).codebase?.commit).toBe(commit);
    expect(gitIn(alpha)('ls-remote', codebase, 'refs/heads/fed/web')).toBe(`${commit}\trefs/heads/fed/web`);

    const betaServer = startServe(beta, [], env);
    await betaServer.waitForEvent('started');
    expect(await fed(beta, ['team', 'move', 'web', '--to', 'beta'])).toContain('moved web from host alpha to beta');
    // Its deliverable, written by the launch on alpha, taken from JetStream.
    await completesOnBeta(fed, beta, betaServer, commit);
    betaServer.child.kill('SIGTERM');
    expect(await betaServer.exited).toBe(0);
  }, 300_000);
});
