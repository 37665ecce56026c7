import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, credsAuthenticator, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import { BackendUnavailableError, InvalidInputError } from '../../core/errors.js';
import { redactUrl, redactUrlsIn } from '../../core/redact-url.js';
import type { JetStreamBackendConfig } from '../../core/schema/backends/jetstream.js';
import { ENV_NATS_URL } from './env-override.js';
import { isCredentialsRefused, isJetStreamNotEnabled, isTlsUnsupported } from './jetstream-errors.js';
import { jetstreamNames, type JetStreamNames } from './names.js';
import { JetStreamSetupError } from './setup-error.js';
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
    connection.authenticator = checkedCreds(
      bytes,
      `backend.credentials.file ${file}`,
      'point backend.credentials.file at the .creds file your NATS operator gave you',
    );
  } else if (creds && 'env' in creds) {
    const value = env[creds.env];
    if (!value)
      throw new InvalidInputError(
        `backend.credentials.env names ${creds.env}, but that environment variable is not set; export the content of your .creds file in it`,
      );
    connection.authenticator = checkedCreds(
      new TextEncoder().encode(value),
      `the environment variable ${creds.env} (backend.credentials.env)`,
      `export in ${creds.env} the content of the .creds file your NATS operator gave you`,
    );
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
 * The authenticator of a .creds file's content, tried once now: content that is not a creds file (no user
 * JWT and nkey seed between their BEGIN and END lines, or a seed that is no nkey seed) is refused naming
 * `source`, before any connection — the client would fail at connecting with "unable to parse credentials".
 */
function checkedCreds(bytes: Uint8Array, source: string, fix: string): ReturnType<typeof credsAuthenticator> {
  const authenticator = credsAuthenticator(bytes);
  try {
    authenticator('fed');
  } catch (error) {
    throw new InvalidInputError(
      `${source} is not a NATS .creds file (${(error as Error).message}): it holds a user JWT and its nkey seed, each between "-----BEGIN …-----" and "------END …------" lines, as nsc generate creds writes them; ${fix}`,
    );
  }
  return authenticator;
}

/** The setting the server URLs come from: FED_NATS_URL replaces backend.servers when it is set (env-override.ts). */
function serversSetting(env: NodeJS.ProcessEnv): string {
  return env[ENV_NATS_URL] !== undefined ? ENV_NATS_URL : 'backend.servers in federate.config.json';
}

/** The credentials a connection presents, each named by the setting it comes from; empty when it presents none. */
function presentedCredentials(connection: NodeConnectionOptions, options: OpenJetStreamOptions): string[] {
  const creds = options.backend.credentials;
  return [
    ...(connection.user !== undefined ? [`the user and password in ${ENV_NATS_URL}`] : []),
    ...(connection.token !== undefined ? [`the token in ${ENV_NATS_URL}`] : []),
    ...(creds && 'file' in creds
      ? [`the .creds file backend.credentials.file (${resolve(options.root, creds.file)})`]
      : []),
    ...(creds && 'env' in creds ? [`the .creds content in ${creds.env} (backend.credentials.env)`] : []),
  ];
}

/**
 * Why a connection failed, when the server answered and refused it or the settings could not be used:
 * credentials refused, TLS asked of a server without it, a URL the client cannot parse. Undefined when
 * the server could not be reached at all.
 */
function connectRefusal(
  error: unknown,
  connection: NodeConnectionOptions,
  options: OpenJetStreamOptions,
  servers: readonly string[],
): Error | undefined {
  const where = servers.join(', ');
  const env = options.env ?? process.env;
  const reason = redactUrlsIn((error as Error).message);
  if (isCredentialsRefused(error)) {
    const presented = presentedCredentials(connection, options);
    return new JetStreamSetupError(
      servers,
      presented.length
        ? `the NATS server at ${where} refused fed's credentials (${reason})`
        : `the NATS server at ${where} requires credentials, and fed presented none (${reason})`,
      presented.length
        ? `check ${presented.join(' and ')}; give credentials this server accepts (and not expired)`
        : `give a user and password in ${ENV_NATS_URL} (nats://user:password@host:4222), or a .creds file in backend.credentials of federate.config.json`,
      error,
    );
  }
  if (isTlsUnsupported(error)) {
    return new JetStreamSetupError(
      servers,
      `the NATS server at ${where} does not offer TLS, but fed connects with TLS (${reason})`,
      `remove backend.tls from federate.config.json to connect without TLS, or point ${serversSetting(env)} at a server with TLS enabled`,
      error,
    );
  }
  if (error instanceof TypeError && (error as NodeJS.ErrnoException).code === 'ERR_INVALID_URL') {
    return new InvalidInputError(
      `${serversSetting(env)} holds a server URL the NATS client cannot parse (${where}): expected nats://host:port or tls://host:port, with a port from 1 to 65535; fix the URL there`,
    );
  }
  return undefined;
}

/**
 * Connect to the federation's JetStream: a server that cannot be reached or has no JetStream is a
 * BackendUnavailableError naming the URLs and how to start a server (exit 2); one that refuses the
 * credentials or the TLS asked of it, a JetStreamSetupError naming the setting to fix (exit 2).
 */
export async function openJetStream(options: OpenJetStreamOptions): Promise<JetStreamSession> {
  const names = jetstreamNames(options.federationName);
  // Messages name the servers, never a password FED_NATS_URL may carry.
  const servers = options.backend.servers.map(redactUrl);
  const where = servers.join(', ');
  const connection = connectionOptions(options);
  let nc: NatsConnection;
  try {
    nc = await connect(connection);
  } catch (error) {
    const refusal = connectRefusal(error, connection, options, servers);
    if (refusal) throw refusal;
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
