import { afterAll, describe, expect, it, vi } from 'vitest';
import { createJetStreamBackend, type HeardHost, type JetStreamBackend, jetstreamBackendSchema } from 'fed/testing';
import { hostRecord } from '../../helpers/host-record.js';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE = "the JetStream hosts' watch, against a real nats-server";

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();
  const opened: JetStreamBackend[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((backend) => backend.close()));
  });
  let federations = 0;
  /** Two backends on one federation, each its own connection: one watches, the other writes. */
  const pair = () => {
    const federationName = `hosts-watch-${process.pid}-${++federations}`;
    const open = () => {
      const backend = createJetStreamBackend({
        root: '/tmp',
        federationName,
        backend: jetstreamBackendSchema.parse({ type: 'jetstream', servers: [server().url] }),
      });
      opened.push(backend);
      return backend;
    };
    return { watcher: open(), writer: open() };
  };

  function listen(backend: JetStreamBackend) {
    const heard: HeardHost[] = [];
    const errors: Error[] = [];
    const watch = backend.hosts!.watch(
      (host) => heard.push(host),
      (error) => errors.push(error),
    );
    return { watch, heard, errors };
  }

  it('hears each write of a host record after it is ready, and tells onError when the connection closes under it', async () => {
    const { watcher, writer } = pair();
    const hosts = listen(watcher);
    await hosts.watch.ready;
    await writer.hosts!.put(hostRecord({ capacity: 3 }));
    await vi.waitFor(() => expect(hosts.heard.map((h) => h.record.capacity)).toEqual([3]), {
      timeout: 10_000,
      interval: 10,
    });

    // The updates end with their subscription: said, not a watch that goes quiet.
    await watcher.close();
    await vi.waitFor(() => expect(hosts.errors).toHaveLength(1), { timeout: 10_000, interval: 10 });
    expect(hosts.errors[0]!.message).toMatch(/the watch of .* KV fed_.*_hosts ended: no host change is heard/);
    await hosts.watch.close();
  });

  it('tells nothing, not even its end, once closed', async () => {
    const { watcher, writer } = pair();
    const hosts = listen(watcher);
    await hosts.watch.ready;
    await hosts.watch.close();
    const other = listen(watcher);
    await other.watch.ready;
    await writer.hosts!.put(hostRecord({}));
    await vi.waitFor(() => expect(other.heard).toHaveLength(1), { timeout: 10_000, interval: 10 });
    await watcher.close();
    await vi.waitFor(() => expect(other.errors).toHaveLength(1), { timeout: 10_000, interval: 10 });
    expect([hosts.heard, hosts.errors]).toEqual([[], []]);
    await other.watch.close();
  });
});
