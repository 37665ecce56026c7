import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideReview, mergeTeam } from 'fed';
import { workspacePaths } from 'fed/testing';
import { codingTeamsInReview } from '../../helpers/git-federation.js';
import { withGitAwaitingEventLoop } from '../../helpers/git-awaiting-event-loop.js';

/** Coding teams (default: `app`) whose one commit each is approved: what `fed team merge` merges. */
async function approvedTeams(domains: readonly string[] = ['app']) {
  const teams = await codingTeamsInReview(domains);
  for (const domain of domains) await decideReview(teams.fed, domain, { approve: true });
  return teams;
}

describe('a merge asked for by a long-lived server (the dashboard, the MCP server)', () => {
  it("looks at the checkout, merges and removes the team's checkout beside the server's event loop", async () => {
    const { fed, git, locations } = await approvedTeams();
    // Each git below waits for the caller's event loop to let it go: run synchronously, it would fail.
    const merged = await withGitAwaitingEventLoop(['status', '--porcelain'], () =>
      withGitAwaitingEventLoop(['merge', '--no-ff'], () =>
        withGitAwaitingEventLoop(['worktree', 'remove'], () => mergeTeam(fed, 'app')),
      ),
    );
    expect(merged).toMatchObject({ team: 'app', branch: 'fed/app', base: 'main', state: 'complete' });
    expect(git('log', '-1', '--format=%s').trim()).toBe('Merge fed/app (fed team app) into main');
    expect(existsSync(join(locations.app!, 'app.txt'))).toBe(false);
    expect(git('branch', '--list', 'fed/app')).toBe('');
  });

  it('refuses a conflicting merge beside the event loop too, aborting it and naming the file', async () => {
    const { fed, root, git } = await approvedTeams();
    writeFileSync(join(root, 'app.txt'), 'the base has its own\n');
    git('add', 'app.txt');
    git('commit', '-qm', 'a conflicting feature');
    await expect(withGitAwaitingEventLoop(['merge', '--abort'], () => mergeTeam(fed, 'app'))).rejects.toThrow(
      'could not merge fed/app into main: it conflicts with main in app.txt',
    );
    expect(existsSync(join(root, '.git', 'MERGE_HEAD'))).toBe(false);
    expect(git('status', '--porcelain', '--untracked-files=no')).toBe('');
  });

  it('merges two teams asked for at once one after the other, each recording its own merge commit', async () => {
    const { fed, git, locations } = await approvedTeams(['app', 'web']);
    const approved = Object.fromEntries(
      ['app', 'web'].map((team) => [team, git('rev-parse', `refs/heads/fed/${team}`).trim()]),
    );
    const merged = await Promise.all([mergeTeam(fed, 'app'), mergeTeam(fed, 'web')]);
    expect(merged.map((result) => result.state)).toEqual(['complete', 'complete']);
    for (const { team, commit } of merged) {
      // The commit each lifecycle records is the merge of that team's approved commit.
      expect(git('rev-parse', `${commit}^2`).trim()).toBe(approved[team]);
      const envelope = JSON.parse(readFileSync(workspacePaths(locations[team]!).envelope, 'utf8'));
      expect(envelope.snapshot.context.mergeCommit).toBe(commit);
    }
    expect(merged[0]!.commit).not.toBe(merged[1]!.commit);
    expect(git('log', '--format=%s', '-2').trim().split('\n').sort()).toEqual([
      'Merge fed/app (fed team app) into main',
      'Merge fed/web (fed team web) into main',
    ]);
    expect(existsSync(join(fed.root, '.fed', 'merge.lock'))).toBe(false);
  });
});
