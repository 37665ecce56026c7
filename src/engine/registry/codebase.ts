import type { TeamCodebase } from '../../core/schema/registry.js';
import { git, GitCommandError, gitRemote, gitSucceeds } from './git.js';

/**
 * The codebase a team works on, as the registry records it (registry `codebase`): the commit and the git
 * remote another host needs to make the team's workspace from its own clone of the codebase.
 */

/** How long a git talking to the codebase's remote may take before it counts as unreachable. */
export const REMOTE_TIMEOUT_MS = 120_000;

/**
 * The codebase at `dir` (the federation's root, or a worktree team's checkout): the commit checked out
 * there and its remote. Undefined when `dir` is in no git repository, or one without a commit yet.
 */
export function readCodebase(dir: string): TeamCodebase | undefined {
  if (!gitSucceeds(dir, ['rev-parse', '--is-inside-work-tree'])) return undefined;
  const commit = checkedOutCommit(dir);
  if (commit === undefined) return undefined;
  const remote = remoteUrl(dir);
  return remote === undefined ? { commit } : { commit, remote };
}

/** The commit checked out at `dir`; undefined before the first commit. */
export function checkedOutCommit(dir: string): string | undefined {
  try {
    return git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  } catch (error) {
    if (error instanceof GitCommandError && !error.killedBy) return undefined;
    throw error;
  }
}

/** The URL of the remote the codebase at `dir` pushes to: its branch's upstream, else `origin`, else its only one. */
function remoteUrl(dir: string): string | undefined {
  const remotes = git(dir, ['remote']).split('\n').filter(Boolean);
  const branch = gitOutput(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  const upstream = branch === undefined ? undefined : gitOutput(dir, ['config', '--get', `branch.${branch}.remote`]);
  const name = [upstream, 'origin', remotes.length === 1 ? remotes[0] : undefined].find(
    (candidate) => candidate !== undefined && remotes.includes(candidate),
  );
  return name === undefined ? undefined : git(dir, ['remote', 'get-url', name]);
}

/** git's answer, or undefined when it says no (a missing config key, a detached head). */
function gitOutput(dir: string, args: readonly string[]): string | undefined {
  try {
    return git(dir, args) || undefined;
  } catch (error) {
    if (error instanceof GitCommandError && !error.killedBy) return undefined;
    throw error;
  }
}

/** Whether the repository at `dir` holds `commit`. */
export function hasCommit(dir: string, commit: string): boolean {
  return gitSucceeds(dir, ['cat-file', '-e', `${commit}^{commit}`]);
}

/**
 * Whether another clone can have `commit` from the remote: one of its branches or tags points at it, or at
 * a commit built on it (merged into another branch, then built on). The remote's heads are asked of it
 * (`git ls-remote`); when none is the commit, they are fetched into the repository at `cwd` (objects only:
 * no ref of it is touched) and the commit looked for among their ancestors — without a repository at
 * `cwd`, only the heads count. Throws when the remote cannot be reached.
 */
export async function remoteHasCommit(cwd: string, remote: string, commit: string): Promise<boolean> {
  const listed = (await gitRemote(cwd, ['ls-remote', '--', remote], REMOTE_TIMEOUT_MS))
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t') as [string, string]);
  // A tag's line is its tag object; the commit it names follows as `<tag>^{}`.
  if (listed.some(([id]) => id === commit)) return true;
  const heads = [...new Set(listed.filter(([, ref]) => !ref.endsWith('^{}')).map(([id]) => id))];
  if (heads.length === 0 || !gitSucceeds(cwd, ['rev-parse', '--git-dir'])) return false;
  await gitRemote(
    cwd,
    ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', remote, ...heads],
    REMOTE_TIMEOUT_MS,
  );
  return (
    hasCommit(cwd, commit) && heads.some((head) => gitSucceeds(cwd, ['merge-base', '--is-ancestor', commit, head]))
  );
}

/** Fetch `commit` from `remote` into the repository at `dir` (objects only: no branch of its own is touched). */
export async function fetchCommit(dir: string, remote: string, commit: string): Promise<void> {
  await gitRemote(
    dir,
    ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', remote, commit],
    REMOTE_TIMEOUT_MS,
  );
}
