import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { linked, locatedHere, teamWorkspace } from '../../adapters/index.js';
import { teamWorkspacePath } from '../../core/layout.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { ensureDirectory } from '../../infra/fs/ensure-directory.js';
import { writeTeamMarker } from '../registry/team-marker.js';
import type { CopyFederationOptions } from './copy-federation.js';

/**
 * The file side of `fed migrate`: the teams' workspaces in the file federation at `root`, checked before
 * the copy writes anything and each given its team marker, so commands run inside it act for its team.
 */

/**
 * Out of the file federation at `root`: a copied or moved federation's teams are read (and registered in
 * the target) at their workspaces in the copy, not in the folder it was copied from; each workspace must
 * be one fed may use, and its marker names this federation.
 */
export function fromFileFederation(root: string): CopyFederationOptions {
  return {
    locate: (entry) => locatedHere(root, entry),
    prepare: (teams) => {
      for (const team of teams) teamWorkspace(root, team);
      for (const team of teams) writeTeamMarker(root, team.location, team.domainId);
    },
  };
}

/**
 * Into the file federation at `root`: a directory team's workspace is made under it; a worktree team keeps
 * its checkout's path, which must lie inside the root (a worktree is not moved by copying).
 */
export function intoFileFederation(root: string): CopyFederationOptions {
  return {
    relocate: (team) =>
      team.placementType === 'directory'
        ? { ...team, location: teamWorkspacePath(root, team.domain, 'directory') }
        : team,
    prepare: (teams) => {
      const made = teams.filter(
        (team) => team.placementType === 'directory' && !lstatSync(team.location, { throwIfNoEntry: false }),
      );
      for (const team of teams) {
        if (made.includes(team)) refuseLinkOnTheWay(root, team);
        else teamWorkspace(root, team);
      }
      for (const team of made) ensureDirectory(team.location);
      for (const team of teams) writeTeamMarker(root, team.location, team.domainId);
    },
  };
}

/** A workspace still to be made must not be made through a link (e.g. `.fed/teams` replaced by one). */
function refuseLinkOnTheWay(root: string, team: RegistryEntry): void {
  let folder = dirname(team.location);
  while (!lstatSync(folder, { throwIfNoEntry: false })) folder = dirname(folder);
  if (relative(root, folder).startsWith('..')) return;
  const real = realpathSync(folder);
  if (real !== folder && real !== join(realpathSync(root), relative(root, folder))) throw linked(team, folder, real);
}
