import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  federationPaths,
  type OnboardingIntent,
  onboardingPaths,
  processIsAlive,
  readRegistry,
  settleWorktreeGit,
  toJsonText,
} from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { killEach, readPid, waitFor } from '../helpers/fixture-process.js';
import { FAKE_GIT_PRELUDE } from '../helpers/fake-git.js';
import { gitFederation } from '../helpers/git-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The crash-campaign flake: `fed team onboard --placement worktree` killed while its `git worktree add`
 * runs. A SIGKILL of fed alone leaves that git running, holding the branch's ref lock; a kill of the
 * whole group leaves the lock file behind with no holder. The retry (and `fed doctor --fix`) must wait
 * for the first and remove the second, never fail on git's "File exists".
 */
const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** A git federation, and where git locks the ref of team api's worktree branch. */
function gitFederationWithLock(): { root: string; git: (...args: string[]) => string; refLock: string } {
  const federation = gitFederation();
  return { ...federation, refLock: join(federation.root, '.git', 'refs', 'heads', 'fed', 'api.lock') };
}

/**
 * A stand-in for a slow git on PATH: the first `worktree add` takes the branch's ref lock as git does
 * while it creates the branch, says so, and holds it until the test releases it; then the real git
 * does the work. Bounded: it gives up by itself after a minute.
 */
function slowGit(refLock: string): { env: NodeJS.ProcessEnv; started: string; release: () => void } {
  const dir = tempDir('fed-slow-git-');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const script = join(bin, 'git');
  writeFileSync(
    script,
    [
      FAKE_GIT_PRELUDE,
      'if [ "$CMD1" = worktree ] && [ "$CMD2" = add ] && [ ! -e "$SLOW_GIT_DIR/started" ]; then',
      '  mkdir -p "$(dirname "$SLOW_GIT_LOCK")" && : > "$SLOW_GIT_LOCK"',
      // Written whole, then renamed: a reader never sees the file before the pid is in it.
      '  echo $$ > "$SLOW_GIT_DIR/started.tmp" && mv "$SLOW_GIT_DIR/started.tmp" "$SLOW_GIT_DIR/started"',
      '  i=0',
      '  while [ ! -e "$SLOW_GIT_DIR/release" ] && [ $i -lt 1200 ]; do i=$((i+1)); sleep 0.05; done',
      '  rm -f "$SLOW_GIT_LOCK"',
      'fi',
      'exec "$REAL_GIT" "$@"',
      '',
    ].join('\n'),
  );
  chmodSync(script, 0o755);
  return {
    env: { PATH: `${bin}:${process.env.PATH}`, SLOW_GIT_DIR: dir, SLOW_GIT_LOCK: refLock, REAL_GIT },
    started: join(dir, 'started'),
    release: () => writeFileSync(join(dir, 'release'), ''),
  };
}

function spawnFed(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  const child = spawn(process.execPath, [FED_BIN, ...args], {
    env: { ...inherited, NO_COLOR: '1', FED_TELEMETRY_ENABLED: 'false', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const run = { stderr: '', code: undefined as number | null | undefined };
  child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
  const done = new Promise<void>((resolve) => child.on('close', (code) => resolve(void (run.code = code))));
  return { child, run, done };
}

/** What a `fed team onboard api --placement worktree` killed after writing its intent record leaves. */
function interruptedWorktreeOnboarding(root: string): OnboardingIntent {
  const intent: OnboardingIntent = {
    domain: 'api',
    domainId: 'api',
    archetypeId: 'deliverable',
    placementType: 'worktree',
    location: join(root, '.fed', 'worktrees', 'api'),
    branch: 'fed/api',
    startedAt: new Date().toISOString(),
  };
  mkdirSync(federationPaths(root).onboarding, { recursive: true });
  writeFileSync(onboardingPaths(root, 'api').intent, toJsonText(intent));
  return intent;
}

describe('a killed worktree onboarding whose git outlives it', () => {
  it('the retry waits for the orphaned git to finish, removes what it made, and completes', async () => {
    const { root, git, refLock } = gitFederationWithLock();
    const slow = slowGit(refLock);
    const args = ['--root', root, 'team', 'onboard', 'api', '--placement', 'worktree'];
    const first = spawnFed(args, slow.env);
    let orphan: number | undefined;
    try {
      await waitFor(
        () => existsSync(slow.started) || first.run.code !== undefined,
        30_000,
        'the first onboarding to start git',
      );
      orphan = readPid(slow.started);
      first.child.kill('SIGKILL'); // fed only: its git runs on, holding the ref lock
      await first.done;
      expect(processIsAlive(orphan)).toBe(true);

      const retry = spawnFed(args);
      await waitFor(
        () => retry.run.stderr.includes('waiting for git') || retry.run.code !== undefined,
        30_000,
        'the retry to wait for git',
      );
      expect(retry.run.code, retry.run.stderr).toBeUndefined();
      expect(retry.run.stderr).toContain(`waiting for git (pid ${orphan}: /bin/sh`);
      slow.release();
      await retry.done;
      expect(retry.run.code, retry.run.stderr).toBe(0);
      expect(readRegistry(root).teams.map((t) => t.domain)).toEqual(['api']);
      expect(git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);
      expect(existsSync(refLock)).toBe(false);
      expect(existsSync(onboardingPaths(root, 'api').intent)).toBe(false);
    } finally {
      // Cleanup never hides the test's own failure: the stand-in git is released, and killed if it lingers.
      slow.release();
      first.child.kill('SIGKILL');
      if (orphan !== undefined)
        await waitFor(() => !processIsAlive(orphan!), 30_000, 'the stand-in git to exit').catch(() =>
          killEach([orphan!]),
        );
    }
  });

  it('a ref lock whose git was killed too is stale: the retry removes it, names it, and completes', async () => {
    const { root, refLock } = gitFederationWithLock();
    interruptedWorktreeOnboarding(root);
    mkdirSync(dirname(refLock), { recursive: true });
    writeFileSync(refLock, '');
    const retry = await runFed(['--root', root, 'team', 'onboard', 'api', '--placement', 'worktree']);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stderr).toContain(`removed stale git lock ${refLock}`);
    expect(readRegistry(root).teams.map((t) => t.domain)).toEqual(['api']);
  });

  it("another repository's git on a branch of the same name is not waited for: the stale lock here is removed", async () => {
    const { root, refLock } = gitFederationWithLock();
    interruptedWorktreeOnboarding(root);
    mkdirSync(dirname(refLock), { recursive: true });
    writeFileSync(refLock, '');
    const other = gitFederationWithLock();
    const slow = slowGit(other.refLock);
    const elsewhere = spawn(
      join(slow.env.SLOW_GIT_DIR!, 'bin', 'git'),
      ['worktree', 'add', '--quiet', '-b', 'fed/api', join(other.root, '.fed', 'worktrees', 'api')],
      { cwd: other.root, env: { ...process.env, ...slow.env }, stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => elsewhere.on('close', resolve));
    try {
      await waitFor(() => existsSync(slow.started), 30_000, "the other repository's git to start");
      const retry = await runFed(['--root', root, 'team', 'onboard', 'api', '--placement', 'worktree']);
      expect(retry.code, retry.stderr).toBe(0);
      expect(retry.stderr).not.toContain('waiting for git');
      expect(retry.stderr).toContain(`removed stale git lock ${refLock}`);
    } finally {
      slow.release();
      await exited;
    }
  });

  it('fed doctor names the stale lock, and --fix removes it with the half-made worktree', async () => {
    const { root, git, refLock } = gitFederationWithLock();
    const intent = interruptedWorktreeOnboarding(root);
    git('worktree', 'add', '--quiet', '-b', 'fed/api', intent.location);
    const indexLock = join(root, '.git', 'worktrees', 'api', 'index.lock');
    writeFileSync(indexLock, '');
    writeFileSync(refLock, '');
    const check = await runFed(['--root', root, 'doctor']);
    expect(check.stdout).toContain(`stale git locks its killed git left: ${refLock}, ${indexLock}`);
    const fix = await runFed(['--root', root, 'doctor', '--fix']);
    expect(fix.code, fix.stdout + fix.stderr).toBe(0);
    expect(existsSync(refLock) || existsSync(indexLock) || existsSync(intent.location)).toBe(false);
    expect(git('branch', '--list', 'fed/api')).toBe('');
    expect((await runFed(['--root', root, 'team', 'onboard', 'api', '--placement', 'worktree'])).code).toBe(0);
  });

  // `git worktree add` makes its administrative folder, writes `locked`, `gitdir`, the checkout's `.git`,
  // then `commondir`: a group kill can leave it at any of these, a file torn (empty) at the last.
  it.each([
    ['only locked', ['locked']],
    ['gitdir written, commondir torn (empty)', ['locked', 'gitdir', 'commondir']],
  ])(
    'a worktree add killed with its git, its administrative folder left at %s: the retry completes',
    async (_, files) => {
      const { root, git } = gitFederation();
      const intent = interruptedWorktreeOnboarding(root);
      git('branch', 'fed/api');
      const admin = join(root, '.git', 'worktrees', 'api');
      mkdirSync(admin, { recursive: true });
      for (const file of files) {
        const text = { locked: 'initializing', gitdir: join(intent.location, '.git'), commondir: '' }[file];
        writeFileSync(join(admin, file), text ?? '');
      }
      mkdirSync(intent.location, { recursive: true });
      const retry = await runFed(['--root', root, 'team', 'onboard', 'api', '--placement', 'worktree']);
      expect(retry.code, retry.stderr).toBe(0);
      expect(readRegistry(root).teams.map((t) => t.domain)).toEqual(['api']);
      expect(git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);
      expect(readFileSync(join(admin, 'commondir'), 'utf8').trim()).toBe('../..');
    },
  );

  it('a git still running at the deadline is refused by name, its lock kept', async () => {
    const { root, refLock } = gitFederationWithLock();
    const intent = interruptedWorktreeOnboarding(root);
    const slow = slowGit(refLock);
    const holder = spawn(
      join(slow.env.SLOW_GIT_DIR!, 'bin', 'git'),
      ['worktree', 'add', '--quiet', '-b', 'fed/api', intent.location],
      { cwd: root, env: { ...process.env, ...slow.env }, stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => holder.on('close', resolve));
    try {
      await waitFor(() => existsSync(slow.started), 30_000, 'the stand-in git to take the lock');
      const refused = await settleWorktreeGit(root, intent.location, 'fed/api', { timeoutMs: 200 }).catch(
        (error: Error & { code?: string }) => error,
      );
      expect(refused).toMatchObject({ code: 'GIT_BUSY' });
      expect((refused as Error).message).toContain(`(pid ${holder.pid}: /bin/sh`);
      expect(existsSync(refLock)).toBe(true);
    } finally {
      slow.release();
      await exited;
    }
  });
});
