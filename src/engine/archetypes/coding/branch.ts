import { RefusedError } from '../../../core/errors.js';
import { worktreeBranch } from '../../../core/layout.js';
import { git, gitSucceeds } from '../../registry/git.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';

/** Where a coding team's change lives: its branch, and the branch of the main checkout it merges into. */
export interface TeamBranch {
  branch: string;
  base: string;
}

/**
 * The branch of a coding team (`fed/<domain>`, made by worktree placement) and the base it is reviewed
 * against and merged into: the branch checked out in the federation root. Refused, with what to do, for
 * a team without its own branch or a root that is not on a branch.
 */
export function teamBranch(root: string, team: RegistryEntry): TeamBranch {
  if (team.placementType !== 'worktree') {
    throw new RefusedError(
      'NO_TEAM_BRANCH',
      `team "${team.domainId}" has placement "${team.placementType}", so it has no branch of its own to review or merge; onboard coding teams with --placement worktree`,
    );
  }
  const branch = worktreeBranch(team.domain);
  if (!gitSucceeds(root, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])) {
    throw new RefusedError(
      'NO_TEAM_BRANCH',
      `team "${team.domainId}": its branch ${branch} does not exist (removed by hand, or already merged and cleaned up)`,
    );
  }
  return { branch, base: baseBranch(root) };
}

/** The branch checked out in the federation root, which team branches merge into (refused when detached). */
export function baseBranch(root: string): string {
  try {
    return git(root, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  } catch {
    throw new RefusedError(
      'DETACHED_HEAD',
      `the main checkout ${root} is not on a branch (detached HEAD); check out the branch to merge into first`,
    );
  }
}
