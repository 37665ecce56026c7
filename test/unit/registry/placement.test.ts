import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { teamWorkspacePath } from 'fed/testing';
import { createWorkspace } from '../../../src/engine/registry/placement.js';
import { codebaseClone, codebaseRemote } from '../../helpers/git-federation.js';
import { withGitAwaitingEventLoop } from '../../helpers/git-awaiting-event-loop.js';

describe("a worktree team's workspace, made as it is onboarded", () => {
  it("is checked out beside the caller's event loop (the dashboard onboards teams), and removed whole", async () => {
    const { root, git } = codebaseClone(codebaseRemote());
    const made = await withGitAwaitingEventLoop(['worktree', 'add'], () => createWorkspace(root, 'docs', 'worktree'));
    expect(made.location).toBe(teamWorkspacePath(root, 'docs', 'worktree'));
    expect(git('-C', made.location, 'symbolic-ref', '--short', 'HEAD')).toBe('fed/docs');
    await made.remove();
    expect(existsSync(made.location)).toBe(false);
    expect(git('branch', '--list', 'fed/docs')).toBe('');
  });
});
