import { join, sep } from 'node:path';
import {
  CoreWorkspacePaths,
  definePathGetters,
  federationPaths as workspaceFederationPaths,
  fedDirOf,
  flattened,
  FED_DIR,
  memoisedPaths,
  type WorkspacePaths,
} from '../../core/layout.js';
import { FEDERATION_JOURNAL_FILE } from '../../core/schema/federation-journal.js';
import { ENVELOPE_FILE, JOURNAL_FILE, STATE_DIR, STATE_LOCK_FILE } from '../../core/schema/lifecycle-state.js';
import { REGISTRY_FILE } from '../../core/schema/registry.js';
import { TEAM_ACTIVITY_FILE } from '../../core/schema/team-activity.js';

/**
 * Where file-signal-v1 keeps what the ports hold (docs/design/spec.md §4.1): the registry and the federation
 * journal under the root's `.fed/`, the signal boxes and the lifecycle's state files and earlier runs under
 * each workspace's. `federationPaths` and `workspacePaths` here are the layout of core/layout.ts (what every
 * backend has) with these added: the file backend's whole layout, and only its adapter's to use.
 */

/** The file backend's own files under the root's `.fed/`. */
const rootFiles = memoisedPaths((root: string) =>
  flattened({
    registry: join(root, FED_DIR, REGISTRY_FILE),
    registryLock: join(root, FED_DIR, `${REGISTRY_FILE}.lock`),
    /** The digest of the last large registry text fed validated (registry-validation.ts). */
    registryValidated: join(root, FED_DIR, `${REGISTRY_FILE}.validated`),
    /** The teams' activity since the registry last took it in (team-activity-file.ts). */
    teamActivity: join(root, FED_DIR, TEAM_ACTIVITY_FILE),
    /** The activity a registry write is folding in (or a crashed one left): read too, until it is folded. */
    teamActivityFolding: join(root, FED_DIR, `${TEAM_ACTIVITY_FILE}.folding`),
    /** The federation journal (`fed log`): launches, status changes and retries of every team — not a lifecycle journal. */
    federationJournal: join(root, FED_DIR, FEDERATION_JOURNAL_FILE),
  }),
);

/** Each of the file backend's own paths under a workspace's `.fed`, from the separator on (see core/layout.ts). */
const UNDER_FED_DIR = (() => {
  const under = (...names: string[]) => ['', ...names].join(sep);
  return {
    signals: under('signals'),
    inbox: under('signals', 'inbox'),
    outbox: under('signals', 'outbox'),
    envelope: under(STATE_DIR, ENVELOPE_FILE),
    journal: under(STATE_DIR, JOURNAL_FILE),
    stateLock: under(STATE_DIR, STATE_LOCK_FILE),
    /** Earlier runs of the team's lifecycle (`fed team retry`): `run-<n>/` with its state and journal. */
    history: under('history'),
  };
})();

/** A workspace's paths: core's layout, and the file backend's own beside them, each made when read. */
class FileWorkspacePaths extends CoreWorkspacePaths {}
definePathGetters(FileWorkspacePaths.prototype, UNDER_FED_DIR);

/** The paths of the federation at `root`: core's, and the file backend's registry and federation journal. */
export const federationPaths = memoisedPaths((root: string) => ({
  ...workspaceFederationPaths(root),
  ...rootFiles(root),
}));

/** The paths of a workspace: core's, and the file backend's signal boxes, lifecycle state files and earlier runs. */
export const workspacePaths = memoisedPaths(
  (workspace: string) =>
    new FileWorkspacePaths(workspace, fedDirOf(workspace)) as WorkspacePaths & {
      readonly [K in keyof typeof UNDER_FED_DIR]: string;
    },
);

/** The paths the file backend alone writes under a workspace (meta's: `root`, with the root's files too). */
export function fileBackendPaths(workspace: string, root: boolean): string[] {
  const fedDir = fedDirOf(workspace);
  return [
    ...Object.values(UNDER_FED_DIR).map((ending) => fedDir + ending),
    ...(root ? Object.values(rootFiles(workspace)) : []),
  ];
}
