import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation } from 'fed';
import { keepTeamCommit } from 'fed/testing';
import { codebaseClone, codebaseRemote, gitIn } from '../helpers/git-federation.js';

const ENV = { FED_TELEMETRY_ENABLED: 'false' };

/** A federation in one machine's clone of a shared codebase, fed's files committed as a project would. */
function federationInClone(serve: object = {}) {
  const remote = codebaseRemote();
  const { root, git } = codebaseClone(remote);
  initFederation(root, {}, ENV);
  const file = join(root, 'federate.config.json');
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), serve }));
  git('add', '-A');
  git('commit', '-qm', 'fed');
  return { remote, root, git, fed: openFederation(root, { env: ENV }) };
}

describe("a team's codebase in the registry: recorded at onboarding, kept current after each launch", () => {
  it('records the commit and the remote for a worktree team and a directory team, and nothing outside git', async () => {
    const { remote, git, fed } = federationInClone();
    const head = git('rev-parse', 'HEAD');
    const web = await onboardTeam(fed, { domain: 'web', placementType: 'worktree' });
    const docs = await onboardTeam(fed, { domain: 'docs' });
    for (const entry of [web, docs]) expect(entry.codebase).toEqual({ commit: head, remote });
    const registered = (await fed.backend.registry.read()).teams;
    expect(registered.map((t) => t.codebase)).toEqual([
      { commit: head, remote },
      { commit: head, remote },
    ]);

    const { root: plain } = codebaseClone(remote);
    gitIn(plain)('remote', 'remove', 'origin');
    initFederation(plain, {}, ENV);
    const alone = await onboardTeam(openFederation(plain, { env: ENV }), { domain: 'docs' });
    expect(alone.codebase).toEqual({ commit: gitIn(plain)('rev-parse', 'HEAD') });
  });

  it("records a worktree team's branch head after a launch, only when it moved, and never pushes unless asked", async () => {
    const { remote, fed } = federationInClone();
    const web = await onboardTeam(fed, { domain: 'web', placementType: 'worktree' });
    expect(await keepTeamCommit(fed, web)).toEqual([]);
    const unchanged = (await fed.backend.registry.read()).lockVersion;
    await keepTeamCommit(fed, web);
    expect((await fed.backend.registry.read()).lockVersion).toBe(unchanged);

    const worktree = gitIn(web.location);
    worktree('commit', '-q', '--allow-empty', '-m', 'the team worked');
    const worked = worktree('rev-parse', 'HEAD');
    expect(await keepTeamCommit(fed, web)).toEqual([]);
    expect((await fed.team('web')).codebase).toEqual({ commit: worked, remote });
    expect(gitIn(web.location)('ls-remote', remote, 'refs/heads/fed/web')).toBe('');
  });

  it('with serve.pushTeamBranches pushes the branch to the recorded remote, and says so when it cannot', async () => {
    const { remote, fed } = federationInClone({ pushTeamBranches: true });
    const web = await onboardTeam(fed, { domain: 'web', placementType: 'worktree' });
    const worktree = gitIn(web.location);
    worktree('commit', '-q', '--allow-empty', '-m', 'the team worked');
    expect(await keepTeamCommit(fed, web)).toEqual([]);
    expect(worktree('ls-remote', remote, 'refs/heads/fed/web')).toBe(
      `${worktree('rev-parse', 'HEAD')}\trefs/heads/fed/web`,
    );

    // The remote's branch moved on elsewhere: no force push, said by name, the commit recorded all the same.
    const other = codebaseClone(remote);
    other.git('fetch', '-q', 'origin', 'fed/web');
    other.git('checkout', '-q', '-b', 'fed/web', 'FETCH_HEAD');
    other.git('commit', '-q', '--allow-empty', '-m', 'elsewhere');
    other.git('push', '-q', 'origin', 'fed/web');
    worktree('commit', '-q', '--allow-empty', '-m', 'again');
    const warnings = await keepTeamCommit(fed, await fed.team('web'));
    expect(warnings).toEqual([expect.stringContaining(`its branch fed/web was not pushed to ${remote}`)]);
    expect((await fed.team('web')).codebase?.commit).toBe(worktree('rev-parse', 'HEAD'));
  });
});
