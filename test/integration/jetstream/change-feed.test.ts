import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { JetStreamBackend } from 'fed/testing';
import type { FederationChange } from 'fed';
import { useJetStreamBackends } from '../../helpers/jetstream-backends.js';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE = "the JetStream change feed's mapping, against a real nats-server";

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();
  const { pair } = useJetStreamBackends(server, 'changes');

  function listen(backend: JetStreamBackend) {
    const changes: FederationChange[] = [];
    const errors: Error[] = [];
    const watch = backend.changes.watch(
      (change) => changes.push(change),
      (error) => errors.push(error),
    );
    const heard = (want: FederationChange) =>
      vi.waitFor(() => expect(changes).toContainEqual(want), { timeout: 10_000, interval: 10 });
    return { watch, changes, errors, heard };
  }

  it('maps each bucket and stream to its change, and leaves out leases and seq hints', async () => {
    const { watcher, writer } = pair();
    const feed = listen(watcher);
    await feed.watch.ready;
    const { session, lifecycle, delivery, acks, registry } = await writer.streams();
    const { js, names } = session;
    const id = randomUUID();

    // Neither a lifecycle's writer lease nor a signal's seq hint is a change anyone reads.
    await lifecycle.put('lock.docs', 'lease');
    await delivery.put(names.seqHintKey(id), '1');
    await registry.put('registry', '{}');
    await feed.heard({ scope: 'registry' });
    expect(feed.changes).toEqual([{ scope: 'registry' }]);

    await lifecycle.put('docs', '{}');
    await feed.heard({ scope: 'team', team: 'docs', what: 'lifecycle' });
    await js.publish(names.journalSubject('api', 1), '{}');
    await feed.heard({ scope: 'team', team: 'api', what: 'lifecycle' });
    await js.publish(names.federationJournalSubject, '{}');
    await feed.heard({ scope: 'journal' });
    await js.publish(names.inboxSubject('docs', 'meta'), '{}');
    await feed.heard({ scope: 'team', team: 'docs', what: 'inbox' });
    await feed.heard({ scope: 'meta', what: 'outbox' });
    await js.publish(names.inboxSubject('meta', 'api'), '{}');
    await feed.heard({ scope: 'meta', what: 'inbox' });
    await feed.heard({ scope: 'team', team: 'api', what: 'outbox' });
    await acks.put(`api.${id}`, '{}');
    await feed.heard({ scope: 'team', team: 'api', what: 'inbox' });
    await delivery.put(`${id}.read`, '{}');
    await feed.heard({ scope: 'delivery' });
    expect(feed.errors).toEqual([]);
    await feed.watch.close();
  });

  it('coalesces a burst of one change and never loses its last', async () => {
    const { watcher, writer } = pair();
    const feed = listen(watcher);
    await feed.watch.ready;
    const { session } = await writer.streams();
    for (let i = 1; i <= 50; i++) await session.js.publish(session.names.journalSubject('docs', i), '{}');
    await feed.heard({ scope: 'team', team: 'docs', what: 'lifecycle' });
    expect(feed.changes.length).toBeLessThan(50);
    await feed.watch.close();
  });

  it('tells onError when the connection closes under the watch, and the watch ends', async () => {
    const { watcher } = pair();
    const feed = listen(watcher);
    await feed.watch.ready;
    await watcher.close();
    await vi.waitFor(() => expect(feed.errors).toHaveLength(1), { timeout: 10_000, interval: 10 });
    expect(feed.errors[0]!.message).toMatch(/connection closed/);
    await feed.watch.close();
  });

  it('tells nothing once closed', async () => {
    const { watcher, writer } = pair();
    const feed = listen(watcher);
    await feed.watch.ready;
    await feed.watch.close();
    const other = listen(watcher);
    await other.watch.ready;
    const { registry } = await writer.streams();
    await registry.put('registry', '{}');
    await other.heard({ scope: 'registry' });
    expect(feed.changes).toEqual([]);
    await other.watch.close();
  });

  // Last: it restarts the server the other tests share.
  it('after a reconnect, tells { scope: all } (what fell in the gap, registry, journal, delivery, lifecycles and boxes, is read again)', async () => {
    const { watcher } = pair();
    const feed = listen(watcher);
    await feed.watch.ready;
    await server().stop();
    await server().start();
    await feed.heard({ scope: 'all' });
    expect(feed.errors).toEqual([]);
    await feed.watch.close();
  }, 60_000);
});
