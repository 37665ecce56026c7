import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideReview, mergeTeam } from 'fed';
import { codingTeamInReview } from '../../helpers/git-federation.js';
import { withGitAwaitingEventLoop } from '../../helpers/git-awaiting-event-loop.js';

/** A coding team `app` whose one commit is approved: what `fed team merge app` merges. */
async function approvedTeam() {
  const team = await codingTeamInReview();
  await decideReview(team.fed, 'app', { approve: true });
  return team;
}

describe('a merge asked for by a long-lived server (the dashboard, the MCP server)', () => {
  it("looks at the checkout, merges and removes the team's checkout beside the server's event loop", async () => {
    const { fed, git, location } = await approvedTeam();
    // Each git below waits for the caller's event loop to let it go: run synchronously, it would fail.
    const merged = await withGitAwaitingEventLoop(['status', '--porcelain'], () =>
      withGitAwaitingEventLoop(['merge', '--no-ff'], () =>
        withGitAwaitingEventLoop(['worktree', 'remove'], () => mergeTeam(fed, 'app')),
      ),
    );
    expect(merged).toMatchObject({ team: 'app', branch: 'fed/app', base: 'main', state: 'complete' });
    expect(git('log', '-1', '--format=%s').trim()).toBe('Merge fed/app (fed team app) into main');
    expect(existsSync(join(location, 'feature.txt'))).toBe(false);
    expect(git('branch', '--list', 'fed/app')).toBe('');
  });

  it('refuses a conflicting merge beside the event loop too, aborting it and naming the file', async () => {
    const { fed, root, git } = await approvedTeam();
    writeFileSync(join(root, 'feature.txt'), 'the base has its own\n');
    git('add', 'feature.txt');
    git('commit', '-qm', 'a conflicting feature');
    await expect(withGitAwaitingEventLoop(['merge', '--abort'], () => mergeTeam(fed, 'app'))).rejects.toThrow(
      'could not merge fed/app into main: it conflicts with main in feature.txt',
    );
    expect(existsSync(join(root, '.git', 'MERGE_HEAD'))).toBe(false);
    expect(git('status', '--porcelain', '--untracked-files=no')).toBe('');
  });
});
