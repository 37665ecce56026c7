import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RefusedError } from '../../core/errors.js';
import { unlinkQuietly } from '../../infra/fs/atomic-write.js';
import { realPathOr } from '../../infra/fs/path-kind.js';
import { runningProcessesNamed, type RunningProcess } from '../../infra/process/running-processes.js';
import { git, GitCommandError } from './git.js';

/**
 * What a `git worktree add -b <branch> <location>` that fed started and could not see to its end leaves
 * behind. A SIGKILL of fed does not reach its git: it runs on, orphaned, and holds git's locks a while
 * longer. A git killed too (the whole process group) leaves its lock files — the branch's
 * `refs/heads/<branch>.lock`, the new worktree's `index.lock` and `HEAD.lock` — and git never removes a
 * lock by itself, so every later git on that branch fails with "File exists".
 */
export interface WorktreeGitLeftovers {
  /** Live git processes working on the worktree or its branch; undefined without `/proc` (unknown). */
  running: RunningProcess[] | undefined;
  /** Lock files of the branch and of the worktree's administrative folder. */
  locks: string[];
}

/** How long a retry waits for an orphaned git to finish by default: a checkout of a big repository takes a while. */
export const ORPHAN_GIT_WAIT_MS = 60_000;

export function worktreeGitLeftovers(root: string, location: string, branch: string): WorktreeGitLeftovers {
  return { running: gitsWorkingOn(root, location, branch), locks: gitLockFiles(root, location, branch) };
}

export interface SettleGitOptions {
  /** Give up waiting for a live git after this long (default ORPHAN_GIT_WAIT_MS). */
  timeoutMs?: number;
  /** Told once when there is a git to wait for, and for each stale lock removed. */
  onWarning?: (text: string) => void;
}

/**
 * Make the worktree and branch of an interrupted onboarding safe to remove: wait (bounded) until no git
 * works on them any more, then remove the lock files left by a git that is gone (stale), and return
 * them. Refused (GIT_BUSY) when a git still runs at the deadline, or when lock files remain and this
 * platform cannot tell whether a git holds them.
 */
export async function settleWorktreeGit(
  root: string,
  location: string,
  branch: string,
  options: SettleGitOptions = {},
): Promise<string[]> {
  const deadline = Date.now() + (options.timeoutMs ?? ORPHAN_GIT_WAIT_MS);
  let announced = false;
  for (;;) {
    const { running, locks } = worktreeGitLeftovers(root, location, branch);
    if (running?.length === 0) {
      for (const lock of locks) {
        unlinkQuietly(lock);
        options.onWarning?.(`removed stale git lock ${lock}: the git that held it is gone (killed with an onboarding)`);
      }
      return locks;
    }
    if (running === undefined && locks.length === 0) return [];
    if (Date.now() >= deadline) throw gitBusy(location, running, locks);
    if (!announced && running) {
      options.onWarning?.(
        `waiting for ${describeGits(running)}, left running by an interrupted onboarding, to finish with ${location}`,
      );
      announced = true;
    }
    await sleep(100);
  }
}

function gitBusy(location: string, running: RunningProcess[] | undefined, locks: string[]): RefusedError {
  if (running) {
    return new RefusedError(
      'GIT_BUSY',
      `${describeGits(running)} is still working on ${location}, left running by an interrupted onboarding; wait for it to finish and try again, or stop it (kill ${running.map((p) => p.pid).join(' ')})`,
    );
  }
  return new RefusedError(
    'GIT_BUSY',
    `git lock files ${locks.join(', ')} are left on ${location}, and this platform cannot tell whether a git still holds them; when no git is running there, remove them and try again`,
  );
}

export function describeGits(running: readonly RunningProcess[]): string {
  return running.map((p) => `git (pid ${p.pid}: ${p.argv.join(' ')})`).join(', ');
}

/** The repository's common git folder, where branches and worktree administration live. */
function gitCommonDir(root: string): string | undefined {
  try {
    return resolve(root, git(root, ['rev-parse', '--git-common-dir']));
  } catch (error) {
    if (error instanceof GitCommandError) return undefined;
    throw error;
  }
}

function gitLockFiles(root: string, location: string, branch: string): string[] {
  const common = gitCommonDir(root);
  if (!common) return [];
  const locks = [join(common, 'refs', 'heads', ...branch.split('/')) + '.lock'].filter((file) => existsSync(file));
  return [...locks, ...adminDirsOf(common, location).flatMap(gitLocksIn)];
}

/**
 * Remove the administrative folders git keeps for the worktree at `location` (its checkout already
 * removed). A `git worktree add` killed midway leaves one locked ("initializing"), which neither
 * `git worktree unlock` nor `prune` can clear when a file of it is torn — an empty `commondir` makes every
 * git that lists worktrees die ("failed to read …/commondir"), `git branch -D` included.
 */
export async function removeWorktreeAdmin(root: string, location: string): Promise<void> {
  const common = gitCommonDir(root);
  if (common) for (const dir of adminDirsOf(common, location)) await rm(dir, { recursive: true, force: true });
}

/** The administrative folders in the repository's common git folder `common` that belong to the worktree at `location`. */
export function adminDirsOf(common: string, location: string): string[] {
  const admin = join(common, 'worktrees');
  if (!existsSync(admin)) return [];
  return readdirSync(admin)
    .map((name) => join(admin, name))
    .filter((dir) => isAdminDirOf(dir, location));
}

/** The `*.lock` files git keeps in one of its folders (fed's own locks are another format, see src/infra/fs/lock.ts). */
function gitLocksIn(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((file) => file.endsWith('.lock'))
      .map((file) => join(dir, file));
  } catch {
    // Not a folder, or pruned meanwhile: nothing of git's there.
    return [];
  }
}

/**
 * `git worktree add` names the folder after the worktree and writes `locked` in it, then `gitdir` with the
 * checkout's real path: a folder without `gitdir` is told by its name.
 */
function isAdminDirOf(dir: string, location: string): boolean {
  let gitdir: string;
  try {
    gitdir = readFileSync(join(dir, 'gitdir'), 'utf8').trim();
  } catch {
    return basename(dir) === basename(location);
  }
  const real = join(realPathOr(dirname(location)), basename(location));
  return gitdir === join(location, '.git') || gitdir === join(real, '.git');
}

/**
 * Git processes whose arguments name the worktree, or the branch in this repository (another repository's
 * branch of the same name is not this one's; one whose folder cannot be seen may be this one's), or that
 * run inside the worktree (its checkout).
 */
function gitsWorkingOn(root: string, location: string, branch: string): RunningProcess[] | undefined {
  const gits = runningProcessesNamed('git');
  if (!gits) return undefined;
  const realRoot = realPathOr(root);
  const places = [location, join(realRoot, relative(root, location))];
  const within = (dir: string | undefined, tops: readonly string[]) =>
    dir !== undefined && tops.some((top) => dir === top || dir.startsWith(top + sep));
  return gits.filter(
    (p) =>
      (p.argv.includes(branch) && (p.cwd === undefined || within(p.cwd, [root, realRoot]))) ||
      p.argv.some((arg) => places.includes(arg)) ||
      within(p.cwd, places),
  );
}
