import { describe, expect, it, vi } from 'vitest';
import type { HeardHost, JetStreamBackend } from 'fed/testing';
import { hostRecord } from '../../helpers/host-record.js';
import { useJetStreamBackends } from '../../helpers/jetstream-backends.js';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE = "the JetStream hosts' watch, against a real nats-server";

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();
  const { pair } = useJetStreamBackends(server, 'hosts-watch');

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
