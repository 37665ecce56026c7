import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasCommit, readCodebase, remoteHasCommit } from '../../../src/engine/registry/codebase.js';
import { codebaseClone, codebaseRemote, gitIn } from '../../helpers/git-federation.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('the codebase a team works on, as the registry records it', () => {
  it("is the commit checked out and the clone's origin", () => {
    const remote = codebaseRemote();
    const { root, git } = codebaseClone(remote);
    expect(readCodebase(root)).toEqual({ commit: git('rev-parse', 'HEAD'), remote });
  });

  it('prefers the remote the branch pushes to over origin, and takes a lone remote by any name', () => {
    const remote = codebaseRemote();
    const { root, git } = codebaseClone(remote);
    const fork = codebaseRemote();
    git('remote', 'add', 'fork', fork);
    git('fetch', '-q', 'fork');
    git('branch', '--set-upstream-to', 'fork/main');
    expect(readCodebase(root)?.remote).toBe(fork);
    git('remote', 'remove', 'origin');
    git('branch', '--unset-upstream');
    expect(readCodebase(root)?.remote).toBe(fork);
  });

  it('has no remote when the repository has none, and is none outside git or before a first commit', () => {
    const dir = tempDir();
    expect(readCodebase(dir)).toBeUndefined();
    const git = gitIn(dir);
    git('init', '-q');
    expect(readCodebase(dir)).toBeUndefined();
    git('-c', 'user.email=fed@test', '-c', 'user.name=fed', 'commit', '-q', '--allow-empty', '-m', 'one');
    expect(readCodebase(dir)).toEqual({ commit: git('rev-parse', 'HEAD') });
  });

  it('asks the remote itself whether a branch or tag holds a commit; an unreachable remote throws', async () => {
    const remote = codebaseRemote();
    const { root, git } = codebaseClone(remote);
    const pushed = git('rev-parse', 'HEAD');
    git('commit', '-q', '--allow-empty', '-m', 'local only');
    const local = git('rev-parse', 'HEAD');
    expect(await remoteHasCommit(root, remote, pushed)).toBe(true);
    expect(await remoteHasCommit(root, remote, local)).toBe(false);
    expect(hasCommit(root, local)).toBe(true);
    expect(hasCommit(codebaseClone(remote).root, local)).toBe(false);
    await expect(remoteHasCommit(root, join(tempDir(), 'gone.git'), pushed)).rejects.toThrow(/ls-remote/);
  });

  it('holds a commit merged into a branch and built on, or under a tag built on it; not one it truly lacks', async () => {
    const remote = codebaseRemote();
    const a = codebaseClone(remote);
    a.git('checkout', '-q', '-b', 'fed/web');
    a.git('commit', '-q', '--allow-empty', '-m', 'the team worked');
    const worked = a.git('rev-parse', 'HEAD');
    a.git('checkout', '-q', 'main');
    a.git('merge', '-q', '--no-ff', '--no-edit', 'fed/web');
    a.git('commit', '-q', '--allow-empty', '-m', 'built on');
    a.git('push', '-q', 'origin', 'main');
    // Asked from another clone, which lacks the commit until it fetches the remote's heads.
    const b = codebaseClone(codebaseRemote());
    expect(hasCommit(b.root, worked)).toBe(false);
    expect(await remoteHasCommit(b.root, remote, worked)).toBe(true);
    // Outside a repository only the heads count.
    expect(await remoteHasCommit(tempDir(), remote, worked)).toBe(false);

    a.git('checkout', '-q', '-b', 'tagged', worked);
    a.git('commit', '-q', '--allow-empty', '-m', 'tagged on');
    const tagged = a.git('rev-parse', 'HEAD^');
    a.git('commit', '-q', '--allow-empty', '-m', 'tagged on again');
    a.git('tag', '-a', '-m', 'a release', 'v1');
    a.git('push', '-q', 'origin', 'v1');
    expect(await remoteHasCommit(codebaseClone(remote).root, remote, tagged)).toBe(true);
    a.git('commit', '-q', '--allow-empty', '-m', 'never pushed');
    expect(await remoteHasCommit(codebaseClone(remote).root, remote, a.git('rev-parse', 'HEAD'))).toBe(false);
  });
});
