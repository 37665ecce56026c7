import type { FederationConfig } from '../core/schema/config.js';
import type { FederationBackend } from '../ports/federation-backend.js';
import type { CheckedWorkspaces } from './checked-workspaces.js';
import { openFileBackend } from './file/open-file-backend.js';
import { createJetStreamBackend } from './jetstream/open-jetstream-backend.js';
import { sharedNetworkBackend } from './network-backends.js';

export { closeOpenBackends } from './network-backends.js';
export { FILE_BACKEND_NAME, openFileBackend } from './file/open-file-backend.js';
export { CheckedWorkspaces } from './checked-workspaces.js';
export { isWorkspaceRefusal, relocatedWorkspace, teamWorkspace, WORKSPACE_REFUSALS } from './team-workspace.js';

export interface OpenBackendOptions {
  root: string;
  /** The federation's config, already loaded (the context loads it once per command). */
  config: FederationConfig;
  env?: NodeJS.ProcessEnv;
  /** The context's workspace checks, shared with the file backend so each team is checked once per context. */
  workspaces?: CheckedWorkspaces;
}

/**
 * The backend a federation's configuration selects: file-signal-v1 by default, NATS JetStream when
 * `backend.type` is `jetstream` (or `FED_NATS_URL` set it). Opening never waits for the network: a
 * JetStream backend connects on first use, and is shared by every caller in this process until
 * `closeOpenBackends`. Only the Federation context (src/engine/context.ts) calls this.
 */
export function openBackend({ root, config, env = process.env, workspaces }: OpenBackendOptions): FederationBackend {
  const backend = config.backend;
  if (backend?.type !== 'jetstream') return openFileBackend(root, workspaces);
  return sharedNetworkBackend(JSON.stringify([root, config.federationName, backend]), () =>
    createJetStreamBackend({ root, federationName: config.federationName, backend, env }),
  );
}

/**
 * Whether a federation shares its registry with other machines (JetStream): then a team whose workspace is
 * outside this root works in another machine's (or working directory's) checkout — not a misplaced workspace.
 */
export function sharesTeamsAcrossMachines(config: FederationConfig): boolean {
  return config.backend?.type === 'jetstream';
}
