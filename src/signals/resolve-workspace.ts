import { RefusedError, UnknownTeamError } from '../errors.js';
import { workspacePaths } from '../layout.js';
import { findTeam, statusOf } from '../registry/find-team.js';
import { readRegistry } from '../registry/registry-file.js';
import { teamWorkspace } from '../registry/team-workspace.js';
import { META } from '../schema/common.js';
import type { Registry, RegistryEntry } from '../schema/registry.js';

/** A party of the signal protocol — `meta` or a registered team — and where its signal boxes are. */
export interface SignalWorkspace {
  /** `meta`, or the team's `domainId` (a team may be named by its domain; signals carry the id). */
  id: string;
  workspace: string;
  inbox: string;
  outbox: string;
  /** The registry entry; undefined for `meta`. */
  entry: RegistryEntry | undefined;
}

export interface ResolveWorkspaceOptions {
  /** Names the party in error messages, e.g. `recipient (--to)`. */
  role?: string;
  /** Reading an archived team's boxes is history and allowed; sending or acknowledging is refused. */
  allowArchived?: boolean;
  /** An already-read registry, so one command reads it once. */
  registry?: Registry;
}

/**
 * Where a party's signals live: meta's workspace is the federation root, a team's is its registry
 * `location`. Paths come only from the registry, never from the name given, and a location outside the
 * federation root (or through a symbolic link) is refused by `teamWorkspace`, so no input can make fed
 * write elsewhere (ARCHITECTURE invariant 9).
 */
export function resolveSignalWorkspace(root: string, party: string, options: ResolveWorkspaceOptions = {}): SignalWorkspace {
  const role = options.role ?? 'team';
  if (party === META) return { id: META, ...boxes(root), entry: undefined };
  const registry = options.registry ?? readRegistry(root);
  const entry = findTeam(registry, party);
  if (!entry) {
    const error = new UnknownTeamError(party, registry.teams.map((t) => t.domainId));
    // Say which option named the team: a default taken from FED_TEAM is easy to miss otherwise.
    error.message = `${role}: ${error.message}`;
    throw error;
  }
  if (statusOf(entry) === 'archived' && !options.allowArchived) {
    throw new RefusedError(
      'TEAM_ARCHIVED',
      `${role}: team "${entry.domainId}" is archived; archived teams neither send nor receive signals (list its history with: fed signal list --team ${entry.domainId})`,
    );
  }
  return partyWorkspace(root, { id: entry.domainId, entry });
}

/** Where the boxes of a party already resolved are: meta's in the root, a team's in its (checked) registry location. */
export function partyWorkspace(root: string, party: { id: string; entry: RegistryEntry | undefined }): SignalWorkspace {
  if (!party.entry) return { id: party.id, ...boxes(root), entry: undefined };
  return { id: party.id, ...boxes(teamWorkspace(root, party.entry)), entry: party.entry };
}

function boxes(workspace: string): Pick<SignalWorkspace, 'workspace' | 'inbox' | 'outbox'> {
  const paths = workspacePaths(workspace);
  return { workspace, inbox: paths.inbox, outbox: paths.outbox };
}
