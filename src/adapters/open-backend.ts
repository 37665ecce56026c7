import { openFileBackend } from './file/open-file-backend.js';
import { createJetStreamBackend } from './jetstream/open-jetstream-backend.js';
import { loadConfig } from '../infra/config/load-config.js';
import { FedError } from '../core/errors.js';
import type { FederationBackend } from '../ports/federation-backend.js';
import { sharedNetworkBackend } from './network-backends.js';

export { closeOpenBackends } from './network-backends.js';

/**
 * The backend of the federation at `root`, as its configuration selects: file-signal-v1 by default, NATS
 * JetStream when `backend.type` is `jetstream` or `FED_NATS_URL` is set. Opening never waits for the
 * network: a JetStream backend connects on first use, and is shared by every caller in this process
 * until `closeOpenBackends`.
 */
export function openBackend(root: string, env: NodeJS.ProcessEnv = process.env): FederationBackend {
  const { config } = loadConfig(root, env);
  const backend = config.backend;
  if (backend?.type !== 'jetstream') return openFileBackend(root);
  return sharedNetworkBackend(JSON.stringify([root, config.federationName, backend]), () =>
    createJetStreamBackend({ root, federationName: config.federationName, backend, env }),
  );
}

/**
 * Whether the federation at `root` shares its registry with other machines (JetStream): then a team whose
 * workspace is outside this root works in another machine's (or working directory's) checkout — not a
 * misplaced workspace. A config that cannot be loaded counts as files; the commands that need it say why.
 */
export function sharesTeamsAcrossMachines(root: string, env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    return loadConfig(root, env).config.backend?.type === 'jetstream';
  } catch (error) {
    if (error instanceof FedError) return false;
    throw error;
  }
}
