import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bringWorktreeToCodebase,
  createWorktreeFromCodebase,
} from '../../../src/engine/registry/worktree-from-codebase.js';
import { codebaseClone, codebaseRemote } from '../../helpers/git-federation.js';
import { withGitAwaitingEventLoop } from '../../helpers/git-awaiting-event-loop.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { teamWorkspacePath } from 'fed/testing';

/** Host A's clone where team docs worked on its branch fed/docs: its commit, pushed or not. */
function teamWorkedOnA(remote: string, { push }: { push: boolean }) {
  const a = codebaseClone(remote);
  a.git('checkout', '-q', '-b', 'fed/docs');
  a.git('commit', '-q', '--allow-empty', '-m', 'the team worked');
  if (push) a.git('push', '-q', 'origin', 'fed/docs');
  return a.git('rev-parse', 'HEAD');
}

const team = (commit: string, remote?: string) => ({
  domain: 'docs',
  domainId: 'docs',
  codebase: remote === undefined ? { commit } : { commit, remote },
});

describe("a moved worktree team's workspace, made from this host's clone of the codebase", () => {
  it("fetches the commit from the recorded remote and checks it out on the team's branch", async () => {
    const remote = codebaseRemote();
    const commit = teamWorkedOnA(remote, { push: true });
    const b = codebaseClone(remote);
    const made = await createWorktreeFromCodebase(b.root, team(commit, remote));
    expect(made.location).toBe(teamWorkspacePath(b.root, 'docs', 'worktree'));
    expect(b.git('-C', made.location, 'rev-parse', 'HEAD')).toBe(commit);
    expect(b.git('-C', made.location, 'symbolic-ref', '--short', 'HEAD')).toBe('fed/docs');
  });

  it("checks the codebase out beside the caller's event loop: fed serve's host heartbeat goes on meanwhile", async () => {
    const remote = codebaseRemote();
    const commit = teamWorkedOnA(remote, { push: true });
    const b = codebaseClone(remote);
    const made = await withGitAwaitingEventLoop(['worktree', 'add'], () =>
      createWorktreeFromCodebase(b.root, team(commit, remote)),
    );
    expect(b.git('-C', made.location, 'rev-parse', 'HEAD')).toBe(commit);
  });

  it('moves a branch of the team this clone has forward to the commit, and refuses one that holds other commits', async () => {
    const remote = codebaseRemote();
    const b = codebaseClone(remote);
    b.git('branch', 'fed/docs');
    const commit = teamWorkedOnA(remote, { push: true });
    const made = await createWorktreeFromCodebase(b.root, team(commit, remote));
    expect(b.git('rev-parse', 'fed/docs')).toBe(commit);
    await made.remove();
    // The branch, made before, is kept when the workspace is removed.
    expect(b.git('rev-parse', 'fed/docs')).toBe(commit);

    b.git('checkout', '-q', 'fed/docs');
    b.git('commit', '-q', '--allow-empty', '-m', 'only here');
    const own = b.git('rev-parse', 'HEAD');
    b.git('checkout', '-q', 'main');
    await expect(createWorktreeFromCodebase(b.root, team(commit, remote))).rejects.toThrow(
      expect.objectContaining({ code: 'BRANCH_EXISTS', message: expect.stringContaining(`is at ${own}`) }),
    );
    expect(b.git('rev-parse', 'fed/docs')).toBe(own);
    expect(existsSync(teamWorkspacePath(b.root, 'docs', 'worktree'))).toBe(false);
  });

  it('refuses a commit never pushed, naming it and the remote, and leaves nothing made', async () => {
    const remote = codebaseRemote();
    const commit = teamWorkedOnA(remote, { push: false });
    const b = codebaseClone(remote);
    const refusal: unknown = await createWorktreeFromCodebase(b.root, team(commit, remote)).catch(
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ code: 'TEAM_COMMIT_UNAVAILABLE' });
    expect((refusal as Error).message).toContain(commit);
    expect((refusal as Error).message).toContain(remote);
    expect((refusal as Error).message).toContain(`git push ${remote} ${commit}:refs/heads/fed/docs`);
    expect(existsSync(teamWorkspacePath(b.root, 'docs', 'worktree'))).toBe(false);
    expect(b.git('branch', '--list', 'fed/docs')).toBe('');

    await expect(createWorktreeFromCodebase(b.root, team(commit))).rejects.toThrow(
      expect.objectContaining({ code: 'TEAM_COMMIT_UNAVAILABLE' }),
    );
    await expect(createWorktreeFromCodebase(b.root, { domain: 'docs', domainId: 'docs' })).rejects.toThrow(
      expect.objectContaining({ code: 'MOVE_UNSUPPORTED' }),
    );
    await expect(createWorktreeFromCodebase(tempDir(), team(commit, remote))).rejects.toThrow(
      expect.objectContaining({ code: 'NO_CODEBASE_CLONE', message: expect.stringContaining(`git clone ${remote}`) }),
    );
  });
});

describe('a worktree team back on a host it worked on, its old worktree brought to the commit it worked on since', () => {
  /** The team's worktree on B at the codebase's first commit, then its commits on A (pushed): B is behind. */
  async function backOnB() {
    const remote = codebaseRemote();
    const b = codebaseClone(remote);
    const first = b.git('rev-parse', 'HEAD');
    const made = await createWorktreeFromCodebase(b.root, team(first, remote));
    const commit = teamWorkedOnA(remote, { push: true });
    const back = { ...team(commit, remote), location: made.location };
    return { b, first, commit, back, inWorktree: (...args: string[]) => b.git('-C', made.location, ...args) };
  }

  it('fetches the commit and fast-forwards the branch; a worktree at or ahead of the commit is left as it is', async () => {
    const { b, commit, back, inWorktree } = await backOnB();
    await bringWorktreeToCodebase(b.root, back);
    expect(inWorktree('rev-parse', 'HEAD')).toBe(commit);
    expect(inWorktree('symbolic-ref', '--short', 'HEAD')).toBe('fed/docs');
    // Commits made here after the recorded one: nothing of the team's is lost by going on with them.
    inWorktree('commit', '-q', '--allow-empty', '-m', 'here since');
    const ahead = inWorktree('rev-parse', 'HEAD');
    await bringWorktreeToCodebase(b.root, back);
    expect(inWorktree('rev-parse', 'HEAD')).toBe(ahead);
  });

  it("fast-forwards beside the caller's event loop", async () => {
    const { b, commit, back, inWorktree } = await backOnB();
    await withGitAwaitingEventLoop(['merge', '--ff-only'], () => bringWorktreeToCodebase(b.root, back));
    expect(inWorktree('rev-parse', 'HEAD')).toBe(commit);
  });

  it("refuses by name, changing nothing, a worktree with changes not committed or commits the team's commit lacks", async () => {
    const { b, first, commit, back, inWorktree } = await backOnB();
    writeFileSync(join(back.location, 'README.md'), 'changed here\n');
    await expect(bringWorktreeToCodebase(b.root, back)).rejects.toThrow(
      expect.objectContaining({ code: 'WORKTREE_BEHIND', message: expect.stringContaining('changes not committed') }),
    );
    expect(inWorktree('rev-parse', 'HEAD')).toBe(first);
    inWorktree('commit', '-qam', 'only here');
    const own = inWorktree('rev-parse', 'HEAD');
    await expect(bringWorktreeToCodebase(b.root, back)).rejects.toThrow(
      expect.objectContaining({ code: 'WORKTREE_BEHIND', message: expect.stringContaining(`git merge ${commit}`) }),
    );
    expect(inWorktree('rev-parse', 'HEAD')).toBe(own);
    // Merged by hand as the refusal says, the team goes on with both.
    inWorktree('merge', '-q', '--no-edit', commit);
    const merged = inWorktree('rev-parse', 'HEAD');
    await bringWorktreeToCodebase(b.root, back);
    expect(inWorktree('rev-parse', 'HEAD')).toBe(merged);
  });
});
