import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { InvalidInputError, RefusedError } from '../errors.js';
import { federationPaths, teamWorkspacePath } from '../layout.js';
import type { PlacementType } from '../schema/registry.js';
import { git, gitSucceeds } from './git.js';

/** A created workspace and how to undo it if the registry commit that follows fails. */
export interface CreatedWorkspace {
  location: string;
  remove: () => void;
}

export function worktreeBranch(domain: string): string {
  return `fed/${domain}`;
}

/**
 * Create a team workspace (spec §2.4 placementType). The final directory is created exclusively, so of
 * two concurrent onboardings of one domain only the creator ever removes it again.
 */
export function createWorkspace(root: string, domain: string, placement: PlacementType): CreatedWorkspace {
  const location = teamWorkspacePath(root, domain, placement);
  return placement === 'directory' ? createDirectory(location) : createWorktree(root, domain, location);
}

function createDirectory(location: string): CreatedWorkspace {
  mkdirSync(dirname(location), { recursive: true });
  try {
    mkdirSync(location);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new RefusedError('WORKSPACE_EXISTS', `workspace ${location} already exists; remove it or choose another domain`);
    }
    throw error;
  }
  return { location, remove: () => rmSync(location, { recursive: true, force: true }) };
}

function createWorktree(root: string, domain: string, location: string): CreatedWorkspace {
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
  if (gitSucceeds(root, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])) {
    throw new RefusedError('BRANCH_EXISTS', `git branch ${branch} already exists; delete it (git branch -D ${branch}) or choose another domain`);
  }
  mkdirSync(federationPaths(root).worktrees, { recursive: true });
  try {
    git(root, ['worktree', 'add', '--quiet', '-b', branch, location]);
  } catch (error) {
    throw new RefusedError('WORKTREE_FAILED', `could not create worktree ${location}: ${(error as Error).message}`);
  }
  return {
    location,
    remove: () => {
      git(root, ['worktree', 'remove', '--force', location]);
      git(root, ['branch', '-D', branch]);
    },
  };
}
