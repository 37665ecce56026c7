import { describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { JetStreamRegistryWatch, REGISTRY_COPY_MAX_AGE_MS } from '../../src/adapters/jetstream/registry-watch.js';
import type { FederationStreams } from 'fed/testing';
import type { Registry } from '../../src/core/schema/registry.js';

/** A connection that answers the watch's calls and never reports a status or closes, unless told to. */
function connection(options: { closed?: boolean } = {}): { nc: NatsConnection; subscriptions: () => number } {
  let subscriptions = 0;
  const nc = {
    subscribe() {
      if (options.closed) throw new Error('connection closed');
      subscriptions++;
      return {};
    },
    flush: () => Promise.resolve(),
    status: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => {}) }) }),
    closed: () => new Promise(() => {}),
  } as unknown as NatsConnection;
  return { nc, subscriptions: () => subscriptions };
}

function streamsOf(nc: NatsConnection, opened: { count: number }): () => Promise<FederationStreams> {
  return () => {
    opened.count++;
    return Promise.resolve({ session: { nc } } as unknown as FederationStreams);
  };
}

const registry = { teams: [], lockVersion: 3 } as unknown as Registry;

async function listening(watch: JetStreamRegistryWatch, epochBefore: number): Promise<void> {
  await expect.poll(() => watch.epoch).toBeGreaterThan(epochBefore);
}

describe('the watched registry copy', () => {
  it(`is vouched for by a read for ${REGISTRY_COPY_MAX_AGE_MS} ms at most: whatever the subscription missed is read again`, async () => {
    const { nc } = connection();
    const watch = new JetStreamRegistryWatch(streamsOf(nc, { count: 0 }), '$KV.r.registry');
    await listening(watch, 0);
    const readAt = 1_000_000;
    watch.observe({ registry, revision: 7, text: '{}' }, watch.epoch, readAt);
    expect(watch.current(readAt + REGISTRY_COPY_MAX_AGE_MS)).toBeDefined();
    expect(watch.current(readAt + REGISTRY_COPY_MAX_AGE_MS + 1)).toBeUndefined();
    // The same revision read again vouches anew; an older one (a replica behind) neither replaces nor renews it.
    watch.observe({ registry, revision: 6, text: '{}' }, watch.epoch, readAt + 1_500);
    expect(watch.current(readAt + REGISTRY_COPY_MAX_AGE_MS + 1)).toBeUndefined();
    watch.observe({ registry, revision: 7, text: '{}' }, watch.epoch, readAt + 1_500);
    expect(watch.current(readAt + REGISTRY_COPY_MAX_AGE_MS + 1)).toMatchObject({ lockVersion: 3 });
  });

  it('a read that began before the server had the subscription vouches for nothing', async () => {
    const { nc } = connection();
    const watch = new JetStreamRegistryWatch(streamsOf(nc, { count: 0 }), '$KV.r.registry');
    const before = watch.epoch;
    await listening(watch, before);
    watch.observe({ registry, revision: 7, text: '{}' }, before, Date.now());
    expect(watch.current()).toBeUndefined();
  });

  it('on a connection the client closed itself, it fails quietly and listens again at the next read', async () => {
    const { nc, subscriptions } = connection({ closed: true });
    const opened = { count: 0 };
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const watch = new JetStreamRegistryWatch(streamsOf(nc, opened), '$KV.r.registry');
      await expect.poll(() => opened.count).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      watch.listen();
      await expect.poll(() => opened.count).toBe(2);
      await new Promise((resolve) => setImmediate(resolve));
      expect(subscriptions()).toBe(0);
      expect(watch.current()).toBeUndefined();
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});
