import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Federation } from 'fed';
import { bringInTeamBranch, codingWorktree, readyTeamGit, storePaths } from 'fed/testing';
import { codingTeamsInReview } from '../helpers/git-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A sandboxed coding team's git store (src/engine/registry/team-git-store.ts) and what fed does around its
 * run (coding-worktree.ts), against what its agent can leave there: the agent's side is played by writing
 * the store as its sandbox lets it (its objects, its branch's ref), with real git and real files.
 */

/** Team `app`'s store made ready, and a way to commit in it as its agent does. */
async function readyStore(): Promise<{
  root: string;
  fed: Federation;
  git: (...args: string[]) => string;
  store: ReturnType<typeof storePaths>;
  tip: string;
  agentCommits: (message: string) => string;
}> {
  const { root, git, fed } = await codingTeamsInReview(['app']);
  const team = await fed.team('app');
  const { git: teamGit } = await readyTeamGit(root, team);
  const store = storePaths(teamGit.store, teamGit.branch);
  const tip = git('rev-parse', 'refs/heads/fed/app').trim();
  const inStore = (...args: string[]) =>
    execFileSync('git', ['--git-dir', store.store, ...args], { encoding: 'utf8', stdio: 'pipe' }).trim();
  const agentCommits = (message: string) => {
    const head = inStore('rev-parse', 'refs/heads/fed/app');
    const commit = inStore(
      '-c',
      'user.name=agent',
      '-c',
      'user.email=agent@test',
      'commit-tree',
      `${head}^{tree}`,
      '-p',
      head,
      '-m',
      message,
    );
    inStore('update-ref', 'refs/heads/fed/app', commit);
    return commit;
  };
  return { root, fed, git: (...args) => git(...args).trim(), store, tip, agentCommits };
}

describe("bringing a sandboxed coding team's commits into the repository", () => {
  it('moves its branch to what the agent committed, from where the store started', async () => {
    const { root, fed, git, store, agentCommits } = await readyStore();
    const commit = agentCommits('the agent was here');
    expect(await bringInTeamBranch(root, await fed.team('app'))).toBeUndefined();
    expect(git('rev-parse', 'refs/heads/fed/app')).toBe(commit);
    expect(readFileSync(store.synced, 'utf8').trim()).toBe(commit);
    expect(git('for-each-ref', 'refs/fed/incoming')).toBe('');
  });

  it('keeps the commits aside when the branch moved outside meanwhile, and says where', async () => {
    const { root, fed, git, agentCommits, tip } = await readyStore();
    const commit = agentCommits('the agent was here');
    git('update-ref', 'refs/heads/fed/app', git('commit-tree', `${tip}^{tree}`, '-p', tip, '-m', 'yours'));
    const warning = await bringInTeamBranch(root, await fed.team('app'));
    expect(warning).toMatch(/moved meanwhile .*kept at refs\/fed\/incoming\/app/);
    expect(git('rev-parse', 'refs/fed/incoming/app')).toBe(commit);
  });

  it('counts a branch already where the agent left it as brought in (a launcher killed between the two writes)', async () => {
    const { root, fed, git, store, agentCommits } = await readyStore();
    const commit = agentCommits('the agent was here');
    git('fetch', '-q', '--update-head-ok', store.store, 'refs/heads/fed/app:refs/heads/fed/app');
    expect(await bringInTeamBranch(root, await fed.team('app'))).toBeUndefined();
    expect(readFileSync(store.synced, 'utf8').trim()).toBe(commit);
    expect(git('for-each-ref', 'refs/fed/incoming')).toBe('');
  });

  it('never stalls on a FIFO the agent left among its refs: said, not brought in, and cleared by the next launch', async () => {
    const { root, fed, git, store, agentCommits, tip } = await readyStore();
    agentCommits('the agent was here');
    execFileSync('mkfifo', [join(store.refs, 'stall')]);
    const warning = await bringInTeamBranch(root, await fed.team('app'));
    expect(warning).toContain(`its store holds ${join(store.refs, 'stall')}, which is no file or folder`);
    expect(git('rev-parse', 'refs/heads/fed/app')).toBe(tip);
    const ready = await readyTeamGit(root, await fed.team('app'));
    expect(ready.warning).toContain('which is no file or folder');
    expect(existsSync(join(store.refs, 'stall'))).toBe(false);
    expect(readFileSync(store.ref, 'utf8').trim()).toBe(tip);
  });

  it('finds its worktree whatever link the root is named through', async () => {
    const { root, fed } = await readyStore();
    const linked = join(tempDir(), 'linked-root');
    symlinkSync(root, linked);
    const team = await fed.team('app');
    await expect(readyTeamGit(linked, team)).resolves.toMatchObject({ git: { branch: 'fed/app' } });
  });
});

describe('what fed sets right around a sandboxed coding run', () => {
  it('refuses a link where the sandbox keeps a file or folder read-only (.claude): the agent could swap the link', async () => {
    const { root, fed } = await codingTeamsInReview(['app']);
    const team = await fed.team('app');
    mkdirSync(join(team.location, 'settings'));
    symlinkSync('settings', join(team.location, '.claude'));
    await expect(codingWorktree(root, team)).rejects.toMatchObject({
      code: 'WORKSPACE_SYMLINK',
      message: expect.stringContaining(`${join(team.location, '.claude')} as a link (to settings)`),
    });
  });

  it("puts the worktree's HEAD back on its branch and removes an operation the agent left in progress, not yours", async () => {
    const { root, fed, git } = await codingTeamsInReview(['app']);
    const team = await fed.team('app');
    const admin = join(git('rev-parse', '--path-format=absolute', '--git-common-dir').trim(), 'worktrees', 'app');
    mkdirSync(join(admin, 'sequencer'));
    const prepared = await codingWorktree(root, team);
    // The agent's doing: a detached HEAD, a rebase whose todo runs a command when continued.
    const tip = git('rev-parse', 'refs/heads/fed/app').trim();
    writeFileSync(join(admin, 'HEAD'), `${tip}\n`);
    mkdirSync(join(admin, 'rebase-merge'));
    writeFileSync(join(admin, 'rebase-merge', 'git-rebase-todo'), 'exec touch /tmp/planted\n');
    const warnings = await prepared.afterRun();
    expect(warnings).toEqual([
      expect.stringContaining(`left its worktree's HEAD at ${tip}: fed set it back to fed/app`),
      expect.stringContaining('git operation in progress in its worktree (rebase-merge)'),
    ]);
    expect(readFileSync(join(admin, 'HEAD'), 'utf8')).toBe('ref: refs/heads/fed/app\n');
    expect(existsSync(join(admin, 'rebase-merge'))).toBe(false);
    // Yours, there before the run, is left alone.
    expect(existsSync(join(admin, 'sequencer'))).toBe(true);
    rmSync(join(admin, 'sequencer'), { recursive: true });
  });
});
