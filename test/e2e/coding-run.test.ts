import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { KILL_POINT_ENV, MERGE_KILL_POINTS } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { writeTree } from '../helpers/fixture-repo.js';
import { greeterCodingTeam } from '../helpers/git-federation.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { FAKE_GIT_PRELUDE } from '../helpers/fake-git.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A whole coding run through the real CLI and a real git repository, driven by a fake agent script
 * (test/fixtures/agents/coding-run.mjs) acting on the coding launch prompt: implement, commit, tests fail
 * once then pass, review asks for a change, the next launch makes it, approval, merge.
 */
async function codingFederation() {
  const root = tempDir();
  const fed = (args: string[], timeoutMs?: number) => runFed(['--root', root, ...args], { cwd: root, timeoutMs });
  const git = await greeterCodingTeam(root, async (...args) => expect((await fed(args)).code).toBe(0));
  return { root, git, fed };
}

const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

describe('a coding team, end to end', () => {
  test('implements, reworks after failing tests, is reviewed, reworks after requested changes, is approved and merged', async () => {
    const { root, git, fed } = await codingFederation();
    const launch = () => fed(['launch', '--team', 'app', '--agent', fakeAgent('coding-run'), '--json'], 60_000);

    // The prompt describes the coding lifecycle, and fed-agent is refused up front (nothing changes).
    const builtIn = await fed(['launch', '--team', 'app', '--agent', 'fed-agent']);
    expect(builtIn.code).toBe(2);
    expect(builtIn.stderr).toContain('cannot do the work of a coding team');

    const first = await launch();
    expect(first.code, first.stderr).toBe(0);
    expect(json(first.stdout)).toMatchObject({
      outcome: 'waiting',
      state: 'pr-review',
      next: expect.stringContaining('fed team review app'),
    });
    // (The playbook skill appended at its end is the federation's own, whatever it says.)
    const prompt = readFileSync(join(root, '.fed', 'worktrees', 'app', '.fed', 'launch', 'prompt.md'), 'utf8').split(
      '## Playbook',
    )[0]!;
    expect(prompt).toContain('fed event TESTS_COMPLETE');
    expect(prompt).toContain('`fed/app`');
    expect(prompt).not.toContain('SCAN_COMPLETE');

    // Nothing to do until meta decides: a launch now is refused, saying what meta does next.
    const early = await fed(['launch', '--team', 'app', '--agent', fakeAgent('coding-run')]);
    expect(early.code).toBe(2);
    expect(early.stderr).toContain('fed team review app');

    const review = json((await fed(['team', 'review', 'app', '--json'])).stdout);
    expect(review).toMatchObject({
      state: 'pr-review',
      branch: 'fed/app',
      base: 'main',
      lastTestRun: { passed: 2, failed: 0 },
      reworks: 1,
    });
    expect(review.commits).toHaveLength(2);
    expect(review.diff).toContain('+export const greet = (name) => `Hello, ${name}!`;');
    const shown = await fed(['team', 'review', 'app']);
    expect(shown.stdout).toMatch(/tests:\s+2 passed, 0 failed/);
    expect(shown.stdout).toContain('greet.mjs');

    const tooSoon = await fed(['team', 'merge', 'app']);
    expect(tooSoon.code).toBe(2);
    expect(tooSoon.stderr).toContain('only an approved change is merged');

    const changes = await fed(['team', 'review', 'app', '--request-changes', 'say what greet() is for']);
    expect(changes.code, changes.stderr).toBe(0);
    expect(changes.stdout).toContain('changes requested (implementing)');

    const second = await launch();
    expect(second.code, second.stderr).toBe(0);
    expect(json(second.stdout)).toMatchObject({ outcome: 'waiting', state: 'pr-review' });
    const again = json((await fed(['team', 'review', 'app', '--json'])).stdout);
    expect(again).toMatchObject({
      reworks: 2,
      lastReview: { outcome: 'changes-requested', comments: ['say what greet() is for'] },
    });
    expect(again.diff).toContain('+// say what greet() is for');

    expect((await fed(['team', 'review', 'app', '--approve'])).code).toBe(0);

    // A dirty main checkout is refused with what to do, and nothing is merged.
    writeFileSync(join(root, 'README.md'), '# greeter, edited\n');
    const dirty = await fed(['team', 'merge', 'app']);
    expect(dirty.code).toBe(2);
    expect(dirty.stderr).toContain('uncommitted changes (README.md)');
    expect(existsSync(join(root, 'greet.mjs'))).toBe(false);
    git('checkout', '--', 'README.md');

    const merged = await fed(['team', 'merge', 'app', '--json']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(json(merged.stdout)).toMatchObject({ team: 'app', branch: 'fed/app', base: 'main', state: 'complete' });
    expect(readFileSync(join(root, 'greet.mjs'), 'utf8')).toContain('// say what greet() is for');
    expect(git('log', '-1', '--format=%s')).toBe('Merge fed/app (fed team app) into main');
    expect(git('branch', '--list', 'fed/app')).toBe('');
    expect(git('worktree', 'list')).not.toContain('worktrees/app');
    expect(existsSync(join(root, '.fed', 'worktrees', 'app', 'greet.mjs'))).toBe(false);

    // The team's record stays: archived, its lifecycle complete, every step in the journal.
    const team = json((await fed(['team', 'show', 'app', '--json'])).stdout) as {
      status: string;
      lifecycle: { state: string };
    };
    expect(team.status).toBe('archived');
    expect(team.lifecycle.state).toBe('complete');
    const journal = readFileSync(join(root, '.fed', 'worktrees', 'app', '.fed', 'state', 'journal.jsonl'), 'utf8');
    const moves = journal
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { from: string; to: string; event: string })
      .filter((l) => l.from !== l.to)
      .map((l) => `${l.from}>${l.to}`);
    expect(moves).toEqual([
      'preparing>implementing',
      'implementing>testing',
      'testing>implementing',
      'implementing>testing',
      'testing>pr-open',
      'pr-open>pr-review',
      'pr-review>implementing',
      'implementing>testing',
      'testing>pr-open',
      'pr-open>pr-review',
      'pr-review>pr-approved',
      'pr-approved>merged',
      'merged>complete',
    ]);
  });

  test('a merge that conflicts with the base branch is aborted and refused, naming the files', async () => {
    const { root, git, fed } = await codingFederation();
    expect((await fed(['launch', '--team', 'app', '--agent', fakeAgent('coding-run'), '--json'], 60_000)).code).toBe(0);
    expect((await fed(['team', 'review', 'app', '--approve'])).code).toBe(0);
    writeFileSync(join(root, 'greet.mjs'), 'export const greet = () => "hi";\n');
    git('add', 'greet.mjs');
    git('commit', '-qm', 'a greet() of main');
    const conflict = await fed(['team', 'merge', 'app']);
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toContain('could not merge fed/app into main: it conflicts with main in greet.mjs');
    expect(git('status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(json((await fed(['team', 'show', 'app', '--json'])).stdout)).toMatchObject({
      lifecycle: { state: 'pr-approved' },
    });
  });

  test('commits added after the approval are not merged: the merge names both commits and asks for a new review', async () => {
    const { root, git, fed } = await codingFederation();
    expect((await fed(['launch', '--team', 'app', '--agent', fakeAgent('coding-run'), '--json'], 60_000)).code).toBe(0);
    const worktree = join(root, '.fed', 'worktrees', 'app');
    const gitIn = (...args: string[]) => execFileSync('git', args, { cwd: worktree, encoding: 'utf8' }).trim();
    expect((await fed(['team', 'review', 'app', '--approve'])).code).toBe(0);
    const approved = gitIn('rev-parse', 'HEAD');
    writeFileSync(join(worktree, 'late.mjs'), 'export const late = true;\n');
    gitIn('add', 'late.mjs');
    gitIn('commit', '-qm', 'an unreviewed commit');
    const current = gitIn('rev-parse', 'HEAD');

    const moved = await fed(['team', 'merge', 'app']);
    expect(moved.code).toBe(2);
    expect(moved.stderr).toContain(approved.slice(0, 12));
    expect(moved.stderr).toContain(current.slice(0, 12));
    expect(moved.stderr).toContain('fed team review app');
    expect(git('log', '-1', '--format=%s')).toBe('greeter');
    expect(json((await fed(['team', 'show', 'app', '--json'])).stdout)).toMatchObject({
      lifecycle: { state: 'pr-approved' },
    });

    // Approved again, the new head is what is merged.
    expect((await fed(['team', 'review', 'app', '--approve'])).code).toBe(0);
    const merged = await fed(['team', 'merge', 'app']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(existsSync(join(root, 'late.mjs'))).toBe(true);
  });

  test('a branch with nothing to merge is refused, and the team, its branch and worktree are kept', async () => {
    const { root, git, fed } = await codingFederation();
    expect((await fed(['launch', '--team', 'app', '--agent', fakeAgent('coding-run'), '--json'], 60_000)).code).toBe(0);
    const worktree = join(root, '.fed', 'worktrees', 'app');
    execFileSync('git', ['reset', '-q', '--hard', 'main'], { cwd: worktree });
    expect((await fed(['team', 'review', 'app', '--approve'])).code).toBe(0);

    const empty = await fed(['team', 'merge', 'app']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('fed/app has no commits that are not on main');
    expect(git('branch', '--list', 'fed/app')).toContain('fed/app');
    expect(existsSync(worktree)).toBe(true);
    expect(json((await fed(['team', 'show', 'app', '--json'])).stdout)).toMatchObject({
      lifecycle: { state: 'pr-approved' },
    });
  });

  test('a merge killed before it recorded PR_MERGED is finished by a re-run, without a second merge', async () => {
    const { root, git, fed } = await codingFederation();
    expect((await fed(['launch', '--team', 'app', '--agent', fakeAgent('coding-run'), '--json'], 60_000)).code).toBe(0);
    expect((await fed(['team', 'review', 'app', '--approve'])).code).toBe(0);
    // What the killed merge left: its merge commit on main, the lifecycle still pr-approved.
    git('merge', '--no-ff', '--no-edit', '-m', 'Merge fed/app (fed team app) into main', 'fed/app');
    const left = git('rev-parse', 'HEAD');
    const merged = await fed(['team', 'merge', 'app', '--json']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(json(merged.stdout)).toMatchObject({ commit: left, state: 'complete' });
    expect(git('rev-parse', 'HEAD')).toBe(left);
    expect(existsSync(join(root, 'greet.mjs'))).toBe(true);
  });

  test('a merge killed during its cleanup is finished by a re-run: records kept, worktree and branch removed', async () => {
    const { root, git, fed } = await codingFederation();
    expect((await fed(['launch', '--team', 'app', '--agent', fakeAgent('coding-run'), '--json'], 60_000)).code).toBe(0);
    expect((await fed(['team', 'review', 'app', '--approve'])).code).toBe(0);
    // A git that kills fed when it is asked to remove the worktree: the merge dies mid-cleanup.
    const bin = join(tempDir(), 'bin');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeTree(bin, {
      git: `${FAKE_GIT_PRELUDE}\nif [ "$CMD1" = worktree ] && [ "$CMD2" = remove ]; then kill -9 $PPID; exit 1; fi\nexec "${realGit}" "$@"\n`,
    });
    chmodSync(join(bin, 'git'), 0o755);
    const killed = await runFed(['--root', root, 'team', 'merge', 'app'], {
      cwd: root,
      env: { PATH: `${bin}:${process.env.PATH}` },
    });
    expect(killed.code).not.toBe(0);

    const finished = await fed(['team', 'merge', 'app', '--json']);
    expect(finished.code, finished.stderr).toBe(0);
    expect(json(finished.stdout)).toMatchObject({ team: 'app', state: 'complete', commit: git('rev-parse', 'HEAD') });
    expect(git('branch', '--list', 'fed/app')).toBe('');
    expect(git('worktree', 'list')).not.toContain('worktrees/app');
    expect(existsSync(join(root, '.fed', 'worktrees', 'app', '.fed'))).toBe(true);
    expect(json((await fed(['team', 'show', 'app', '--json'])).stdout)).toMatchObject({
      lifecycle: { state: 'complete' },
    });
  });

  test("a killed git's index.lock is named, not reported as a conflict, and nothing is merged", async () => {
    const { root, git, fed } = await codingFederation();
    expect((await fed(['launch', '--team', 'app', '--agent', fakeAgent('coding-run'), '--json'], 60_000)).code).toBe(0);
    expect((await fed(['team', 'review', 'app', '--approve'])).code).toBe(0);
    writeFileSync(join(root, '.git', 'index.lock'), '');
    const locked = await fed(['team', 'merge', 'app']);
    expect(locked.code).toBe(2);
    expect(locked.stderr).toContain(join(root, '.git', 'index.lock'));
    expect(locked.stderr).not.toContain('conflict');
    expect(git('log', '-1', '--format=%s')).toBe('greeter');
  });

  /** A git that kills itself (SIGKILL) when run as `git <command> …`, once: the marker file remembers it. */
  function gitKilledAt(command: string): Record<string, string> {
    const bin = join(tempDir(), 'bin');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const once = join(bin, 'killed');
    writeTree(bin, {
      git: `${FAKE_GIT_PRELUDE}\nif [ "$CMD1" = ${command} ] && [ ! -e "${once}" ]; then : > "${once}"; kill -9 $$; fi\nexec "${realGit}" "$@"\n`,
    });
    chmodSync(join(bin, 'git'), 0o755);
    return { PATH: `${bin}:${process.env.PATH}` };
  }

  test.each(['rev-parse', 'status', 'rev-list', 'merge'])(
    'a git killed at `git %s` during the merge is a clear error, and a re-run finishes the merge once',
    async (command) => {
      const { root, git, fed } = await codingFederation();
      expect((await fed(['launch', '--team', 'app', '--agent', fakeAgent('coding-run'), '--json'], 60_000)).code).toBe(
        0,
      );
      expect((await fed(['team', 'review', 'app', '--approve'])).code).toBe(0);
      const killed = await runFed(['--root', root, 'team', 'merge', 'app'], { cwd: root, env: gitKilledAt(command) });
      expect(killed.code, killed.stderr).toBe(1);
      expect(killed.stderr).not.toMatch(/^\s+at /m);
      expect(killed.stderr).not.toContain('unexpected error');
      expect(killed.stderr).toContain(`git ${command}`);
      expect(killed.stderr).toContain('was killed (SIGKILL)');
      expect(killed.stderr).toContain('run it again: fed team merge app');
      expect(killed.stderr).toContain(root);

      const finished = await fed(['team', 'merge', 'app', '--json']);
      expect(finished.code, finished.stderr).toBe(0);
      expect(json(finished.stdout)).toMatchObject({ state: 'complete', commit: git('rev-parse', 'HEAD') });
      expect(git('log', '--merges', '--format=%s', 'main')).toBe('Merge fed/app (fed team app) into main');
      expect(git('branch', '--list', 'fed/app')).toBe('');
    },
  );

  test.each(MERGE_KILL_POINTS)(
    'fed team merge SIGKILLed at %s: a re-run finishes it exactly once (merged once, archived, branch deleted)',
    async (point) => {
      const { root, git, fed } = await codingFederation();
      expect((await fed(['launch', '--team', 'app', '--agent', fakeAgent('coding-run'), '--json'], 60_000)).code).toBe(
        0,
      );
      expect((await fed(['team', 'review', 'app', '--approve'])).code).toBe(0);
      const killed = await runFed(['--root', root, 'team', 'merge', 'app'], {
        cwd: root,
        env: { [KILL_POINT_ENV]: point },
      });
      expect(killed.code, `not killed at ${point}: ${killed.stderr}`).toBeNull();

      const finished = await fed(['team', 'merge', 'app', '--json']);
      expect(finished.code, finished.stderr).toBe(0);
      expect(json(finished.stdout)).toMatchObject({ state: 'complete', commit: git('rev-parse', 'HEAD') });
      expect(git('log', '--merges', '--format=%s', 'main')).toBe('Merge fed/app (fed team app) into main');
      expect(git('branch', '--list', 'fed/app')).toBe('');
      expect(git('worktree', 'list')).not.toContain('worktrees/app');
      expect(existsSync(join(root, '.fed', 'worktrees', 'app', '.fed'))).toBe(true);
      const shown = json((await fed(['team', 'show', 'app', '--json'])).stdout);
      expect(shown).toMatchObject({ status: 'archived', lifecycle: { state: 'complete' } });
      // And once more: nothing is left to do, nothing is merged again.
      await fed(['team', 'merge', 'app']);
      expect(git('log', '--merges', '--format=%s', 'main')).toBe('Merge fed/app (fed team app) into main');
    },
  );
});
