import type { BackendAdapter } from '../adapter.js';
import { sharedNetworkBackend } from '../network-backends.js';
import type { JetStreamBackendConfig } from '../../core/schema/backends/jetstream.js';
import { durabilityNote } from './durability-note.js';
import { ENV_NATS_URL, natsUrlOverride } from './env-override.js';
import { jetstreamNames } from './names.js';
import { createJetStreamBackend, type JetStreamBackend } from './open-jetstream-backend.js';
import { redactedBackend } from './redact-servers.js';

/**
 * NATS JetStream (docs/jetstream.md): teams on several machines share signals, registry and lifecycles.
 * Nothing here loads the NATS client: the backend loads it on its first operation, and `fed doctor` its
 * checks, so the commands of a file federation start without it.
 */
export const jetstreamAdapter: BackendAdapter<JetStreamBackendConfig> = {
  type: 'jetstream',
  title: 'JetStream',
  selectHint: `set ${ENV_NATS_URL}=nats://… or "backend": {"type": "jetstream", …} in federate.config.json`,
  sharesTeamsAcrossMachines: true,
  overTheNetwork: true,
  // One backend (one connection) per federation and server list, shared by every caller in this process
  // until closeOpenBackends.
  open: ({ root, config, backend, env }) =>
    sharedNetworkBackend(JSON.stringify([root, config.federationName, backend]), () =>
      createJetStreamBackend({
        root,
        federationName: config.federationName,
        backend,
        env,
        federationReport: config.federationReport,
      }),
    ),
  envOverride: natsUrlOverride,
  envNames: ({ backend }) => [
    ENV_NATS_URL,
    ...(backend?.type === 'jetstream' && backend.credentials && 'env' in backend.credentials
      ? [backend.credentials.env]
      : []),
  ],
  redact: redactedBackend,
  configFiles: (backend) => [
    [
      'backend.credentials.file',
      backend.credentials && 'file' in backend.credentials ? backend.credentials.file : undefined,
    ],
    ['backend.tls.caFile', backend.tls?.caFile],
    ['backend.tls.certFile', backend.tls?.certFile],
    ['backend.tls.keyFile', backend.tls?.keyFile],
  ],
  // The federation's name must be able to name its streams.
  checkInit: (config) => void jetstreamNames(config.federationName),
  async initNotes(backend) {
    const { session } = await (backend as JetStreamBackend).streams();
    const note = durabilityNote(session.serverVersion, session.replicas);
    return note === undefined ? [] : [note];
  },
  async doctor(backend) {
    const { checkJetStream } = await import('./doctor-checks.js');
    return checkJetStream(backend as JetStreamBackend);
  },
};
