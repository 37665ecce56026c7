import { afterAll, beforeAll } from 'vitest';
import { closeOpenBackends } from 'fed';
import { startNatsServer, type NatsServer, type NatsServerOptions } from './nats-server.js';

/**
 * One nats-server for the tests of the enclosing `describe`: started before them, stopped after, once every
 * backend this process opened is closed (an open connection would keep reconnecting to a stopped server).
 * Returns the running server; calling it outside a test is an error. Use it inside
 * `describe.skipIf(skipWithoutNatsServer(SUITE))`, which keeps the loud "skipped: nats-server not on PATH".
 */
export function useNatsServer(options: NatsServerOptions = {}): () => NatsServer {
  let server: (NatsServer & { dispose(): Promise<void> }) | undefined;
  beforeAll(async () => {
    server = await startNatsServer(options);
  });
  afterAll(async () => {
    await closeOpenBackends();
    await server?.dispose();
    server = undefined;
  });
  return () => {
    if (!server) throw new Error('useNatsServer(): the server runs only while the tests of its describe block do');
    return server;
  };
}
