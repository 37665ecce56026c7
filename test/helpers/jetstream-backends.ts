import { afterAll } from 'vitest';
import { createJetStreamBackend, type JetStreamBackend, jetstreamBackendSchema } from 'fed/testing';
import type { NatsServer } from './nats-server.js';

/**
 * JetStream backends on the enclosing describe's server, made directly (each its own connection, not the
 * one a federation's config shares) and all closed after its tests. Call it after `useNatsServer()`: its
 * closing is registered after the server's hooks, so it runs before the server stops. `pair` opens two on a
 * new federation named `<prefix>-<pid>-<n>`: one watches, the other writes.
 */
export function useJetStreamBackends(
  server: () => NatsServer,
  prefix = 'test',
): {
  open(federationName: string): JetStreamBackend;
  pair(): { watcher: JetStreamBackend; writer: JetStreamBackend };
} {
  const opened: JetStreamBackend[] = [];
  afterAll(async () => {
    await Promise.all(opened.splice(0).map((backend) => backend.close()));
  });
  const open = (federationName: string) => {
    const backend = createJetStreamBackend({
      root: '/tmp',
      federationName,
      backend: jetstreamBackendSchema.parse({ type: 'jetstream', servers: [server().url] }),
    });
    opened.push(backend);
    return backend;
  };
  let federations = 0;
  return {
    open,
    pair() {
      const federationName = `${prefix}-${process.pid}-${++federations}`;
      return { watcher: open(federationName), writer: open(federationName) };
    },
  };
}
