import { mkdirSync } from 'node:fs';
import { RefusedError } from '../../core/errors.js';
import { federationPaths, teamWorkspacePath, worktreeBranch } from '../../core/layout.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { checkedOutCommit, fetchCommit, hasCommit } from './codebase.js';
import { git, gitAsync, GitCommandError, gitSucceeds } from './git.js';
import { branchExists, removeWorkspace, worktreeOfBranch, type CreatedWorkspace } from './placement.js';

/**
 * A worktree team's workspace on a host it was moved to: a worktree of this host's own clone of the
 * codebase (the federation's working directory `root`) on the team's branch at the commit the team worked
 * on (registry `codebase`), fetched from the recorded remote when the clone lacks it. Made whole or not at
 * all: refused, with nothing left behind, when the commit cannot be had or this clone's branch of the
 * team holds commits the team's record does not know.
 */
export async function createWorktreeFromCodebase(
  root: string,
  team: Pick<RegistryEntry, 'domain' | 'domainId' | 'codebase'>,
): Promise<CreatedWorkspace> {
  const { codebase } = team;
  const name = `team "${team.domainId}"`;
  if (!codebase)
    throw new RefusedError(
      'MOVE_UNSUPPORTED',
      `${name} works in a git worktree, and the commit it worked on is not recorded, so its workspace cannot be made here; move it back to its host, or archive it and onboard a new team here`,
    );
  if (!gitSucceeds(root, ['rev-parse', '--is-inside-work-tree']))
    throw new RefusedError(
      'NO_CODEBASE_CLONE',
      `${name} works in a git worktree, and ${root} is not a git repository to make it in; clone the codebase there (git clone ${codebase.remote ?? '<its remote>'}) and start fed serve in the clone`,
    );
  const branch = worktreeBranch(team.domain);
  await haveCommit(root, name, branch, codebase.commit, codebase.remote);
  const created = !branchExists(root, branch);
  if (!created) bringBranchTo(root, name, branch, codebase.commit);
  const location = teamWorkspacePath(root, team.domain, 'worktree');
  mkdirSync(federationPaths(root).worktrees, { recursive: true });
  const remove = () =>
    removeWorkspace(root, { location, placementType: 'worktree', branch: created ? branch : undefined });
  try {
    // A checkout of the whole codebase, which takes seconds in a large one: run beside fed serve's event
    // loop, whose host heartbeat must go on (a host silent for three heartbeats is taken for lost).
    await gitAsync(root, [
      'worktree',
      'add',
      '--quiet',
      ...(created ? ['-b', branch, location, codebase.commit] : [location, branch]),
    ]);
  } catch (error) {
    await remove();
    throw new RefusedError('WORKTREE_FAILED', `could not create worktree ${location}: ${(error as Error).message}`);
  }
  return { location, remove };
}

/** The team's commit in this clone, fetched from its remote if need be; refused by name when it cannot be had. */
async function haveCommit(
  root: string,
  name: string,
  branch: string,
  commit: string,
  remote: string | undefined,
): Promise<void> {
  if (hasCommit(root, commit)) return;
  const push = `push it from a clone that has it (git push <remote> ${commit}:refs/heads/${branch})`;
  if (remote === undefined)
    throw new RefusedError(
      'TEAM_COMMIT_UNAVAILABLE',
      `${name} worked on commit ${commit} (branch ${branch}), which this clone (${root}) does not have, and its codebase has no remote recorded to fetch it from; ${push}, or fetch it into this clone`,
    );
  try {
    await fetchCommit(root, remote, commit);
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    throw new RefusedError(
      'TEAM_COMMIT_UNAVAILABLE',
      `${name} worked on commit ${commit} (branch ${branch}), which this clone (${root}) does not have and could not fetch from ${remote} (${error.stderr || error.message}); if the commit was never pushed, ${push.replace('<remote>', remote)}`,
    );
  }
}

/**
 * This clone has a branch of the team already (the team worked here before, or someone made it): moved
 * forward to the team's commit when it is behind, kept when it is there; refused when it holds commits
 * the team's commit does not contain, which making the workspace from it would bring back or lose.
 */
function bringBranchTo(root: string, name: string, branch: string, commit: string): void {
  // A worktree whose folder is gone still holds its branch until pruned.
  git(root, ['worktree', 'prune']);
  const checkout = worktreeOfBranch(root, branch);
  if (checkout)
    throw new RefusedError(
      'BRANCH_EXISTS',
      `${name}'s branch ${branch} is checked out at ${checkout} in ${root}; remove that worktree (git worktree remove ${checkout}), and the workspace is made on the next try`,
    );
  const head = git(root, ['rev-parse', `refs/heads/${branch}`]);
  if (head === commit) return;
  if (!gitSucceeds(root, ['merge-base', '--is-ancestor', head, commit]))
    throw new RefusedError(
      'BRANCH_EXISTS',
      `${name} worked on commit ${commit}, but branch ${branch} in ${root} is at ${head}, which that commit does not contain; keep what it holds under another name (git branch -m ${branch} ${branch}-old), and the workspace is made on the next try`,
    );
  git(root, ['branch', '--force', branch, commit]);
}

/**
 * A worktree team back on this host (moved back, or its unplaced work taken here again) finds its worktree
 * as it left it: brought to the commit the team worked on since (registry `codebase`), fetched from the
 * recorded remote when this clone lacks it, by a fast-forward of the worktree's branch. Left as it is when
 * it holds that commit already — at it, or ahead of it with commits made here since it was recorded (a
 * person's, or a launch's cut short), which lose nothing of the team's. Refused by name, nothing changed,
 * when a fast-forward would lose something: changes to tracked files not committed, or commits here the
 * team's commit lacks while this worktree lacks it too (the two went apart).
 */
export async function bringWorktreeToCodebase(
  root: string,
  team: Pick<RegistryEntry, 'domain' | 'domainId' | 'codebase' | 'location'>,
): Promise<void> {
  const { codebase, location } = team;
  const head = codebase && checkedOutCommit(location);
  if (!codebase || head === undefined || head === codebase.commit) return;
  const name = `team "${team.domainId}"`;
  const { commit } = codebase;
  await haveCommit(root, name, worktreeBranch(team.domain), commit, codebase.remote);
  if (gitSucceeds(location, ['merge-base', '--is-ancestor', commit, head])) return;
  const then = 'and the team goes on at the next try';
  if (!gitSucceeds(location, ['merge-base', '--is-ancestor', head, commit]))
    throw new RefusedError(
      'WORKTREE_BEHIND',
      `${name} worked on commit ${commit} elsewhere, but its worktree ${location} is at ${head}, which holds commits that commit lacks; bring them together there (git merge ${commit}), or drop what only this worktree holds (git reset --hard ${commit}), ${then}`,
    );
  // A status and a fast-forward of a large worktree take seconds: run beside the server's event loop too.
  const changed = await gitAsync(location, ['status', '--porcelain', '--untracked-files=no']);
  if (changed)
    throw new RefusedError(
      'WORKTREE_BEHIND',
      `${name} worked on commit ${commit} elsewhere, and its worktree ${location} has changes not committed (${changed.split('\n').length} files): commit them and merge that commit (git merge ${commit}), or drop them (git checkout -- .), ${then}`,
    );
  try {
    await gitAsync(location, ['merge', '--ff-only', '--quiet', commit]);
  } catch (error) {
    // git checks before it writes: a fast-forward it refuses (an untracked file in the way) changed nothing.
    if (!(error instanceof GitCommandError)) throw error;
    throw new RefusedError(
      'WORKTREE_BEHIND',
      `${name} worked on commit ${commit} elsewhere, and its worktree ${location} could not be brought to it (${error.stderr}); move what is in the way, ${then}`,
    );
  }
}
