import { existsSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { InvalidInputError, RefusedError } from '../../core/errors.js';
import { federationPaths, teamWorkspacePath, worktreeBranch } from '../../core/layout.js';
import type { PlacementType } from '../../core/schema/registry.js';
import { git, gitAsync, gitSucceeds, gitSucceedsAsync } from './git.js';
import { removeTeamGitStore } from './team-git-store.js';
import { removeWorktreeAdmin } from './worktree-git.js';

/** A created workspace and how to undo it if the registry commit that follows fails. */
export interface CreatedWorkspace {
  location: string;
  remove: () => Promise<void>;
}

/**
 * Create a team workspace (docs/design/spec.md §2.4 placementType). The final directory is created exclusively, so of
 * two concurrent onboardings of one domain only the creator ever removes it again. A worktree's checkout runs
 * beside the caller's event loop: in a large codebase it takes seconds, and the dashboard that onboards a team
 * goes on serving meanwhile.
 */
export async function createWorkspace(
  root: string,
  domain: string,
  placement: PlacementType,
): Promise<CreatedWorkspace> {
  const location = teamWorkspacePath(root, domain, placement);
  return placement === 'directory' ? createDirectory(location) : createWorktree(root, domain, location);
}

function createDirectory(location: string): CreatedWorkspace {
  mkdirSync(dirname(location), { recursive: true });
  try {
    mkdirSync(location);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new RefusedError(
        'WORKSPACE_EXISTS',
        `workspace ${location} already exists and no team is registered there; if an interrupted onboarding left it, fed doctor --fix removes it — otherwise move it away or choose another domain`,
      );
    }
    throw error;
  }
  return { location, remove: () => rm(location, { recursive: true, force: true }) };
}

async function createWorktree(root: string, domain: string, location: string): Promise<CreatedWorkspace> {
  if (!gitSucceeds(root, ['rev-parse', '--is-inside-work-tree'])) {
    throw new InvalidInputError(
      `placement "worktree" needs a git repository, and ${root} is not in one; run git init (and commit), or use --placement directory`,
    );
  }
  if (!gitSucceeds(root, ['rev-parse', '--verify', '--quiet', 'HEAD'])) {
    throw new InvalidInputError(
      `placement "worktree" needs at least one commit in ${root} to branch from; commit first, or use --placement directory`,
    );
  }
  const branch = worktreeBranch(domain);
  if (branchExists(root, branch)) {
    // `git branch -D` refuses a branch checked out in a worktree: the advice must remove that first.
    const checkout = worktreeOfBranch(root, branch);
    const remove = checkout
      ? `git worktree remove --force ${checkout} && git branch -D ${branch}`
      : `git branch -D ${branch}`;
    throw new RefusedError(
      'BRANCH_EXISTS',
      `git branch ${branch} already exists${checkout ? ` (checked out at ${checkout})` : ''}; delete it (${remove}) or choose another domain`,
    );
  }
  mkdirSync(federationPaths(root).worktrees, { recursive: true });
  try {
    await gitAsync(root, ['worktree', 'add', '--quiet', '-b', branch, location]);
  } catch (error) {
    throw new RefusedError('WORKTREE_FAILED', `could not create worktree ${location}: ${(error as Error).message}`);
  }
  return { location, remove: () => removeWorkspace(root, { location, placementType: 'worktree', branch }) };
}

/** The git arguments that succeed when `branch` exists. */
const branchCheck = (branch: string) => ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`];

export function branchExists(root: string, branch: string): boolean {
  return gitSucceeds(root, branchCheck(branch));
}

/** branchExists beside the event loop, for a server's request (a merge from the dashboard or MCP). */
export function branchExistsAsync(root: string, branch: string): Promise<boolean> {
  return gitSucceedsAsync(root, branchCheck(branch));
}

/** The worktree that has `branch` checked out, if any. */
export function worktreeOfBranch(root: string, branch: string): string | undefined {
  if (!gitSucceeds(root, ['rev-parse', '--is-inside-work-tree'])) return undefined;
  let current: string | undefined;
  for (const line of git(root, ['worktree', 'list', '--porcelain']).split('\n')) {
    if (line.startsWith('worktree ')) current = line.slice('worktree '.length);
    else if (line === `branch refs/heads/${branch}`) return current;
  }
  return undefined;
}

/**
 * Remove a workspace fed created — also one a killed onboarding left half made: a worktree registered
 * or not, a partial checkout, the branch with or without its worktree. Each step is skipped when there
 * is nothing to undo, so it can run again after being interrupted itself. Beside the event loop: removing
 * a checkout of a large codebase takes seconds, which a server (fed serve, the dashboard) goes on through.
 */
export async function removeWorkspace(
  root: string,
  workspace: { location: string; placementType: PlacementType; branch?: string },
): Promise<void> {
  if (workspace.placementType === 'worktree') {
    // Twice --force also removes a worktree git still has locked (mid-`worktree add`).
    if (existsSync(workspace.location))
      await gitSucceedsAsync(root, ['worktree', 'remove', '--force', '--force', workspace.location]);
    await rm(workspace.location, { recursive: true, force: true });
    await removeWorktreeAdmin(root, workspace.location);
    if (workspace.branch && (await branchExistsAsync(root, workspace.branch)))
      await gitAsync(root, ['branch', '-D', workspace.branch]);
    // The git of its own its sandboxed agent committed to (a worktree is named after its team).
    await removeTeamGitStore(root, basename(workspace.location));
    return;
  }
  await rm(workspace.location, { recursive: true, force: true });
}
