import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, credsAuthenticator, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import { BackendUnavailableError, InvalidInputError } from '../../core/errors.js';
import { redactUrl, redactUrlsIn } from '../../core/redact-url.js';
import type { JetStreamBackendConfig } from '../../core/schema/backends/jetstream.js';
import { isJetStreamNotEnabled } from './jetstream-errors.js';
import { jetstreamNames, type JetStreamNames } from './names.js';
import { urlCredentials } from './url-credentials.js';

/** An open connection to a federation in JetStream, with the names of everything it holds there. */
export interface JetStreamSession {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  names: JetStreamNames;
  /** Copies of every stream and bucket this session creates. */
  replicas: number;
  /** The server version, e.g. `2.9.10` (the durability note of docs/jetstream.md depends on it). */
  serverVersion: string;
  /** The servers fed was told to use, for messages: any password or token in them redacted. */
  servers: readonly string[];
  close(): Promise<void>;
}

export interface OpenJetStreamOptions {
  /** The federation root: relative creds and TLS files are resolved against it. */
  root: string;
  federationName: string | undefined;
  backend: JetStreamBackendConfig;
  env?: NodeJS.ProcessEnv;
  /** How long the first connection may take (default 5 s). */
  connectTimeoutMs?: number;
}

const HOW_TO_START =
  'start one with JetStream enabled (nats-server -js; Debian: apt-get install nats-server), ' +
  'or point FED_NATS_URL or backend.servers in federate.config.json at a running one';

/**
 * Connection options from the config: credentials by reference (or in FED_NATS_URL's URLs), TLS passed
 * through, reconnect forever.
 */
function connectionOptions(options: OpenJetStreamOptions): NodeConnectionOptions {
  const { backend, root } = options;
  const env = options.env ?? process.env;
  const connection: NodeConnectionOptions = {
    ...urlCredentials(backend.servers),
    name: `fed ${options.federationName ?? ''}`.trim(),
    timeout: options.connectTimeoutMs ?? 5_000,
    // A restarted or failed-over server must not end a long-running consumer: reconnect until closed.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    // Without it the client captures a stack trace (up to three Errors) for every request in case it fails:
    // profiled at a sixth of a send's own time. A failed request is still the same error, made when it fails.
    noAsyncTraces: true,
  };
  const creds = backend.credentials;
  if (creds && 'file' in creds) {
    const file = resolve(root, creds.file);
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      throw new InvalidInputError(
        `backend.credentials.file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); fix the path or the file's permissions`,
      );
    }
    connection.authenticator = credsAuthenticator(bytes);
  } else if (creds && 'env' in creds) {
    const value = env[creds.env];
    if (!value)
      throw new InvalidInputError(
        `backend.credentials.env names ${creds.env}, but that environment variable is not set; export the content of your .creds file in it`,
      );
    connection.authenticator = credsAuthenticator(new TextEncoder().encode(value));
  }
  if (backend.tls) {
    const tls = backend.tls;
    connection.tls = {
      ...(tls.caFile && { caFile: resolve(root, tls.caFile) }),
      ...(tls.certFile && { certFile: resolve(root, tls.certFile) }),
      ...(tls.keyFile && { keyFile: resolve(root, tls.keyFile) }),
      ...(tls.handshakeFirst !== undefined && { handshakeFirst: tls.handshakeFirst }),
    };
  }
  return connection;
}

/**
 * Connect to the federation's JetStream: a server that cannot be reached, refuses the credentials or has
 * no JetStream is a BackendUnavailableError naming the URLs and how to start a server (exit 2).
 */
export async function openJetStream(options: OpenJetStreamOptions): Promise<JetStreamSession> {
  const names = jetstreamNames(options.federationName);
  // Messages name the servers, never a password FED_NATS_URL may carry.
  const servers = options.backend.servers.map(redactUrl);
  const where = servers.join(', ');
  let nc: NatsConnection;
  try {
    nc = await connect(connectionOptions(options));
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    const reason = redactUrlsIn((error as Error).message);
    throw new BackendUnavailableError(
      servers,
      `cannot reach the NATS server at ${where} (${reason}); ${HOW_TO_START}`,
      error,
    );
  }
  try {
    const jsm = await jetstreamManager(nc);
    return {
      nc,
      js: jetstream(nc),
      jsm,
      names,
      replicas: options.backend.replicas,
      serverVersion: nc.info?.version ?? 'unknown',
      servers,
      close: () => nc.close(),
    };
  } catch (error) {
    await nc.close();
    // The client's JetStreamNotEnabled: no responders to $JS.API, or the account's 10039 "JetStream not enabled for account".
    if (isJetStreamNotEnabled(error)) {
      throw new BackendUnavailableError(
        servers,
        `the NATS server at ${where} does not have JetStream enabled; restart it with -js (or "jetstream {}" in its config)`,
        error,
      );
    }
    throw new BackendUnavailableError(
      servers,
      `the NATS server at ${where} did not answer JetStream requests (${redactUrlsIn((error as Error).message)}); ${HOW_TO_START}`,
      error,
    );
  }
}
