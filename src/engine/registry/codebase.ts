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
 * Whether the remote has `commit` at the head of one of its branches or tags, asked of the remote itself
 * (`git ls-remote`): what another clone can fetch by its id. Throws when the remote cannot be reached.
 */
export async function remoteHeadsInclude(cwd: string, remote: string, commit: string): Promise<boolean> {
  const heads = await gitRemote(cwd, ['ls-remote', '--', remote], REMOTE_TIMEOUT_MS);
  return heads.split('\n').some((line) => line.split('\t')[0] === commit);
}

/** Fetch `commit` from `remote` into the repository at `dir` (objects only: no branch of its own is touched). */
export async function fetchCommit(dir: string, remote: string, commit: string): Promise<void> {
  await gitRemote(
    dir,
    ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', remote, commit],
    REMOTE_TIMEOUT_MS,
  );
}
