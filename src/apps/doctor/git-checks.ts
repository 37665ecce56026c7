import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { git, GitCommandError } from '../../engine/registry/git.js';
import { runningProcessesNamed } from '../../infra/process/running-processes.js';
import type { PendingFinding } from '../../ports/doctor-finding.js';

/** Without `/proc` to tell whether a git runs, a lock this old is left by one that is gone. */
const UNCHECKED_LOCK_MAX_AGE_MS = 10 * 60_000;

/**
 * The `index.lock` of the repository the federation lives in (and of each of its worktrees) that no git
 * holds: git takes it for every change of the index and never removes one a killed git left, so every
 * later `git add`, `commit` or `checkout` there — fed's worktree onboarding and merges, and the person's
 * own — fails with "Unable to create '…/index.lock': File exists". Reported with how to remove it; left
 * to the person, as git's own advice does, because a git started a moment later would hold it legitimately.
 */
export function checkGitIndexLocks(root: string, onboarded: ReadonlySet<string> = new Set()): PendingFinding[] {
  const dirs = gitDirs(root);
  if (dirs === undefined) return [];
  // A worktree an interrupted onboarding made is that finding's: its locks are named and fixed there.
  const admins = worktreeAdminDirs(dirs.commonDir).filter((admin) => !onboarded.has(worktreeOf(admin) ?? ''));
  const locks = [dirs.gitDir, ...admins]
    .filter((dir, i, all) => all.indexOf(dir) === i)
    .map((dir) => join(dir, 'index.lock'))
    .filter((lock) => existsSync(lock));
  if (locks.length === 0) return [];
  const gits = runningProcessesNamed('git');
  return locks.flatMap((lock): PendingFinding[] => {
    if (gits === undefined) {
      const ageMs = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (ageMs < UNCHECKED_LOCK_MAX_AGE_MS) return [];
    } else if (gits.some((p) => within(root, p.cwd) || p.argv.some((arg) => within(root, arg)))) return [];
    return [
      {
        check: 'git-lock',
        path: lock,
        problem: `git's index lock ${lock} is left by a git that is gone (killed or crashed); every git command that changes the index there fails with "File exists" — fed's worktree onboardings and merges too`,
        fix: `check that no git runs in ${root}, then remove it: rm ${lock}`,
      },
    ];
  });
}

function within(root: string, path: string | undefined): boolean {
  if (path === undefined || !isAbsolute(path)) return false;
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..');
}

/** The repository's git folder at `root` and its common one; undefined when `root` is not in a repository. */
function gitDirs(root: string): { gitDir: string; commonDir: string } | undefined {
  try {
    const [gitDir, commonDir] = git(root, ['rev-parse', '--absolute-git-dir', '--git-common-dir']).split('\n');
    if (!gitDir || !commonDir) return undefined;
    return { gitDir, commonDir: isAbsolute(commonDir) ? commonDir : join(root, commonDir) };
  } catch (error) {
    if (error instanceof GitCommandError) return undefined;
    throw error;
  }
}

/** The checkout a worktree's administrative folder belongs to (its `gitdir` names the checkout's `.git`). */
function worktreeOf(admin: string): string | undefined {
  try {
    return dirname(readFileSync(join(admin, 'gitdir'), 'utf8').trim());
  } catch {
    return undefined;
  }
}

/** The administrative folders of the repository's linked worktrees (each has its own index and index.lock). */
function worktreeAdminDirs(commonDir: string): string[] {
  const admin = join(commonDir, 'worktrees');
  try {
    return readdirSync(admin, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(admin, entry.name));
  } catch {
    return [];
  }
}
