import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refuseUnfetchableCommit } from '../../../src/apps/hosts/move-team.js';
import { codebaseClone, codebaseRemote } from '../../helpers/git-federation.js';
import { tempDir } from '../../helpers/temp-dir.js';
import type { RegistryEntry } from 'fed';

const entry = (placementType: 'worktree' | 'directory', codebase?: { commit: string; remote?: string }) =>
  ({
    domain: 'web',
    domainId: 'web',
    archetypeId: 'deliverable',
    placementType,
    onboardedAt: '2026-11-26T00:00:00.000Z',
    location: '/alpha/.fed/worktrees/web',
    host: 'alpha',
    ...(codebase ? { codebase } : {}),
  }) as RegistryEntry;

describe("fed team move of a worktree team: refused unless its commit can be fetched from the codebase's remote", () => {
  it('moves a commit a branch of the remote points at or builds on, and a directory team whatever its codebase', async () => {
    const remote = codebaseRemote();
    const { root, git } = codebaseClone(remote);
    const commit = git('rev-parse', 'HEAD');
    await refuseUnfetchableCommit(root, entry('worktree', { commit, remote }));
    // Merged, then built on: reachable only through main.
    git('commit', '-q', '--allow-empty', '-m', 'the team worked');
    const merged = git('rev-parse', 'HEAD');
    git('commit', '-q', '--allow-empty', '-m', 'built on');
    git('push', '-q', 'origin', 'HEAD:main');
    await refuseUnfetchableCommit(codebaseClone(remote).root, entry('worktree', { commit: merged, remote }));
    await refuseUnfetchableCommit(root, entry('directory'));
  });

  it('refuses, by name, a commit never pushed, a codebase without a remote, one not recorded, a remote not reached', async () => {
    const remote = codebaseRemote();
    const { root, git } = codebaseClone(remote);
    git('commit', '-q', '--allow-empty', '-m', 'only in this clone');
    const commit = git('rev-parse', 'HEAD');
    const refusal = (team: RegistryEntry) => refuseUnfetchableCommit(root, team).catch((error: unknown) => error);

    expect(await refusal(entry('worktree', { commit, remote }))).toMatchObject({
      code: 'TEAM_COMMIT_UNPUSHED',
      message: expect.stringContaining(
        `worked on commit ${commit} (branch fed/web), which no branch or tag of its remote ${remote} holds: moving the team would lose the commits only host alpha's clone has; push it from a clone that has it (git push ${remote} ${commit}:refs/heads/fed/web)`,
      ),
    });
    expect(await refusal(entry('worktree', { commit }))).toMatchObject({
      code: 'TEAM_COMMIT_UNPUSHED',
      message: expect.stringContaining('its codebase had no git remote at onboarding'),
    });
    expect(await refusal(entry('worktree'))).toMatchObject({
      code: 'MOVE_UNSUPPORTED',
      message: expect.stringContaining('the commit it worked on is not recorded'),
    });
    const gone = join(tempDir(), 'gone.git');
    expect(await refusal(entry('worktree', { commit, remote: gone }))).toMatchObject({
      code: 'REMOTE_UNREACHABLE',
      message: expect.stringContaining(`its codebase's remote ${gone} could not be asked`),
    });
  });
});
