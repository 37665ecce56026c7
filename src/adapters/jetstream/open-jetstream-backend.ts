import { redactedServers } from './redact-servers.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { JetStreamBackendConfig } from '../../core/schema/backends/jetstream.js';
import type { FederationStreams } from './federation-streams.js';
import { JetStreamDeliveryFactStore } from './jetstream-delivery-fact-store.js';
import { JetStreamFederationChanges } from './jetstream-federation-changes.js';
import { JetStreamFederationJournal } from './jetstream-federation-journal.js';
import { JetStreamDispatchQueue } from './jetstream-dispatch-queue.js';
import { JetStreamHostDirectory } from './jetstream-host-directory.js';
import { JetStreamTeamFileStore } from './jetstream-team-file-store.js';
import { JetStreamTranscriptStore } from './jetstream-transcript-store.js';
import { JetStreamLifecycleStore } from './jetstream-lifecycle-store.js';
import { JetStreamRegistryStore } from './jetstream-registry-store.js';
import { JetStreamSignalTransport } from './jetstream-signal-transport.js';
import type { KvLeaseOptions } from './kv-lease.js';
import { jetstreamNames } from './names.js';

/** The protocol of the signals stays file-signal-v1 (the JSON is unchanged); this names the store. */
export const JETSTREAM_BACKEND_NAME = 'nats-jetstream';

/** A backend holding a network connection: it must be closed, or the process does not exit. */
export interface JetStreamBackend extends FederationBackend {
  /** The connection and the federation's streams and buckets, connecting on first use. */
  streams(): Promise<FederationStreams>;
  /** Close the connection if one was opened. Idempotent. */
  close(): Promise<void>;
}

export interface JetStreamBackendOptions {
  root: string;
  federationName: string | undefined;
  backend: JetStreamBackendConfig;
  /** The federation report's file name at the root (config `federationReport`), for the change feed. */
  federationReport?: string;
  env?: NodeJS.ProcessEnv;
  lease?: KvLeaseOptions;
}

/**
 * The ports on JetStream. Opening is synchronous, like the file backend's: the name is checked now,
 * and the connection (and the streams and buckets, created if missing) is made on first use, so an
 * unreachable server is reported by the first operation (BackendUnavailableError, exit 2).
 */
export function createJetStreamBackend(options: JetStreamBackendOptions): JetStreamBackend {
  const names = jetstreamNames(options.federationName);
  // Where things are, in every location and message: the servers without a password FED_NATS_URL may carry.
  const where = redactedServers(options.backend.servers);
  let opening: Promise<FederationStreams> | undefined;
  const streams = (): Promise<FederationStreams> => {
    opening ??= (async () => {
      // The NATS client is loaded only by a federation that uses it: a file federation's commands start
      // without it.
      const [{ openJetStream }, { ensureFederationStreams }] = await Promise.all([
        import('./connect-jetstream.js'),
        import('./federation-streams.js'),
      ]);
      const session = await openJetStream(options);
      try {
        return await ensureFederationStreams(session);
      } catch (error) {
        await session.close();
        throw error;
      }
    })();
    // A failed attempt is not remembered: the next operation tries again (the server may be up by then).
    opening.catch(() => (opening = undefined));
    return opening;
  };
  return {
    name: JETSTREAM_BACKEND_NAME,
    root: options.root,
    streams,
    signals: new JetStreamSignalTransport(streams, names, where),
    registry: new JetStreamRegistryStore(streams, names, where),
    lifecycles: new JetStreamLifecycleStore(streams, names, where, options.lease),
    delivery: new JetStreamDeliveryFactStore(streams, names, where),
    journal: new JetStreamFederationJournal(streams, names, where),
    changes: new JetStreamFederationChanges(streams, names, options.root, options.federationReport),
    hosts: new JetStreamHostDirectory(streams, names, where),
    teamFiles: new JetStreamTeamFileStore(streams, names, where),
    transcripts: new JetStreamTranscriptStore(streams, names, where),
    work: new JetStreamDispatchQueue(streams, names, where),
    close: async () => {
      const open = await opening?.catch(() => undefined);
      opening = undefined;
      await open?.session.close();
    },
  };
}
