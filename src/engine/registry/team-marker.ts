import { workspacePaths } from '../../core/layout.js';
import { toJsonText } from '../../core/json-text.js';
import type { TeamMarker } from '../../core/schema/team-marker.js';
import { existsSync } from 'node:fs';
import { createFileExclusive, writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { ensureDirectory } from '../../infra/fs/ensure-directory.js';

/**
 * Write `<location>/.fed/team.json`: the marker that tells commands run inside the team's workspace which
 * team and federation they act for (without it they act as meta). Written by onboarding, by `fed doctor
 * --fix` for a copied or moved federation, and by `fed migrate` for every workspace it registers.
 */
export function writeTeamMarker(root: string, location: string, domainId: string): void {
  const paths = workspacePaths(location);
  ensureDirectory(paths.fedDir);
  const marker: TeamMarker = { federationRoot: root, domainId };
  writeFileAtomic(paths.marker, toJsonText(marker));
}

/**
 * What makes a folder a team's workspace besides what the team writes: its marker, and in a worktree (its own
 * checkout) a `.fed/.gitignore` that keeps the team's runtime files out of its git status. Onboarding does
 * it, and a server making the workspace of a team moved to its host.
 */
export function prepareTeamWorkspace(root: string, location: string, domainId: string, worktree: boolean): void {
  const paths = workspacePaths(location);
  writeTeamMarker(root, location, domainId);
  if (worktree && !existsSync(`${paths.fedDir}/.gitignore`)) {
    createFileExclusive(`${paths.fedDir}/.gitignore`, '# Runtime files of this fed team workspace.\n*\n');
  }
}
