import { workspacePaths } from '../file-layout.js';
import { resolveParty, type ResolvePartyOptions } from '../../../core/resolve-party.js';
import { readRegistry } from '../registry-file.js';
import { teamWorkspace } from '../../team-workspace.js';
import { META } from '../../../core/schema/common.js';
import type { Registry, RegistryEntry } from '../../../core/schema/registry.js';

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

export interface ResolveWorkspaceOptions extends ResolvePartyOptions {
  /** An already-read registry, so one command reads it once. */
  registry?: Registry;
}

/**
 * Where a party's signals live: meta's workspace is the federation root, a team's is its registry
 * `location`. Paths come only from the registry, never from the name given, and a location outside the
 * federation root (or through a symbolic link) is refused by `teamWorkspace`, so no input can make fed
 * write elsewhere (docs/design/invariants.md #9).
 */
export function resolveSignalWorkspace(
  root: string,
  party: string,
  options: ResolveWorkspaceOptions = {},
): SignalWorkspace {
  const resolved =
    party === META
      ? { id: META, entry: undefined }
      : resolveParty(options.registry ?? readRegistry(root), party, options);
  return partyWorkspace(root, resolved, (entry) => teamWorkspace(root, entry));
}

/** Checks a team's workspace (given the paths of its folders) and returns its location, or refuses it. */
export type WorkspaceCheck = (entry: RegistryEntry, paths: ReturnType<typeof workspacePaths>) => string;

/**
 * Where the boxes of a party already resolved are: meta's in the root, a team's in its registry location
 * once `check` passed it (the backend's checks: once per team, and the folder again before a write).
 */
export function partyWorkspace(
  root: string,
  party: { id: string; entry: RegistryEntry | undefined },
  check: WorkspaceCheck,
): SignalWorkspace {
  if (!party.entry) return { id: party.id, ...boxes(root), entry: undefined };
  return { id: party.id, ...boxes(check(party.entry, workspacePaths(party.entry.location))), entry: party.entry };
}

function boxes(workspace: string): Pick<SignalWorkspace, 'workspace' | 'inbox' | 'outbox'> {
  const paths = workspacePaths(workspace);
  return { workspace, inbox: paths.inbox, outbox: paths.outbox };
}
