import type { FederationBackend } from '../../ports/federation-backend.js';
import type { JetStreamBackendConfig } from '../../schema/config.js';
import { openJetStream, type JetStreamSession } from './connect-jetstream.js';
import { ensureFederationStreams } from './federation-streams.js';
import { JetStreamLifecycleStore } from './jetstream-lifecycle-store.js';
import { JetStreamRegistryStore } from './jetstream-registry-store.js';
import { JetStreamSignalTransport } from './jetstream-signal-transport.js';
import type { KvLeaseOptions } from './kv-lease.js';

/** The protocol name of the signals stays file-signal-v1 (the JSON is unchanged); this names the store. */
export const JETSTREAM_BACKEND_NAME = 'nats-jetstream';

/** A backend holding a network connection: it must be closed, or the process does not exit. */
export interface JetStreamBackend extends FederationBackend {
  readonly session: JetStreamSession;
  close(): Promise<void>;
}

export interface OpenJetStreamBackendOptions {
  root: string;
  federationName: string | undefined;
  backend: JetStreamBackendConfig;
  env?: NodeJS.ProcessEnv;
  lease?: KvLeaseOptions;
}

/** Connect, make sure the federation's streams and buckets exist, and wire the three ports onto them. */
export async function openJetStreamBackend(options: OpenJetStreamBackendOptions): Promise<JetStreamBackend> {
  const session = await openJetStream(options);
  try {
    const streams = await ensureFederationStreams(session);
    const where = session.servers.join(',');
    return {
      name: JETSTREAM_BACKEND_NAME,
      root: options.root,
      session,
      signals: new JetStreamSignalTransport(session, streams.acks),
      registry: new JetStreamRegistryStore(streams.registry, `${where} KV ${session.names.registryBucket}/registry`, session.names.federation),
      lifecycles: new JetStreamLifecycleStore(streams.lifecycle, session.js, session.jsm, session.names, where, options.lease),
      close: () => session.close(),
    };
  } catch (error) {
    await session.close();
    throw error;
  }
}
