import { Kvm } from '@nats-io/kv';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createJetStreamBackend,
  isStreamNameInUse,
  isStreamNotFound,
  isTransientJetStreamError,
  isWrongLastSequence,
  jetStreamApiCode,
  type JetStreamBackend,
  jetstreamBackendSchema,
} from 'fed/testing';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE = 'JetStream error classification (real nats-server replies)';

/** What `op` rejects with (the test fails if it resolves). */
async function rejection(op: () => Promise<unknown>): Promise<unknown> {
  return op().then(
    (value) => expect.fail(`expected a rejection, got ${String(value)}`),
    (error: unknown) => error,
  );
}

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();
  const opened: JetStreamBackend[] = [];
  let federations = 0;
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
  });

  async function session() {
    const backend = createJetStreamBackend({
      root: '/tmp',
      federationName: `errors-${++federations}-${process.pid}`,
      backend: jetstreamBackendSchema.parse({ type: 'jetstream', servers: [server().url] }),
    });
    opened.push(backend);
    return (await backend.streams()).session;
  }

  it('a KV create of a key that holds a value, and an update at a stale revision, are "wrong last sequence"', async () => {
    const { js, names } = await session();
    const kv = await new Kvm(js).create(`${names.federation}-cas`, { history: 1 });
    const first = await kv.create('key', 'one');
    const taken = await rejection(() => kv.create('key', 'two'));
    expect(isWrongLastSequence(taken)).toBe(true);
    await kv.update('key', 'two', first);
    expect(isWrongLastSequence(await rejection(() => kv.update('key', 'three', first)))).toBe(true);
    expect(isWrongLastSequence(await rejection(() => kv.delete('key', { previousSeq: first })))).toBe(true);
    expect(isTransientJetStreamError(taken)).toBe(false);
  });

  it('a missing stream is "stream not found"; adding a stream whose name is taken with another configuration is "already in use"', async () => {
    const { jsm, names } = await session();
    const missing = await rejection(() => jsm.streams.info(`${names.signalStream}-missing`));
    expect(isStreamNotFound(missing)).toBe(true);
    expect(isTransientJetStreamError(missing)).toBe(false);
    const info = await jsm.streams.info(names.signalStream);
    // The same configuration again is accepted as it is: only a different one is refused.
    await jsm.streams.add(info.config);
    const taken = await rejection(() => jsm.streams.add({ ...info.config, subjects: [`other.${names.federation}.>`] }));
    expect(isStreamNameInUse(taken)).toBe(true);
    expect(isStreamNotFound(taken)).toBe(false);
  });

  it('a removed message: gets answer null, a second delete fails with no code of its own', async () => {
    const { js, jsm, names } = await session();
    const { seq } = await js.publish(names.inboxSubject('docs', 'meta'), 'gone soon');
    await jsm.streams.deleteMessage(names.signalStream, seq, false);
    expect(await jsm.direct.getMessage(names.signalStream, { seq })).toBeNull();
    expect(await jsm.streams.getMessage(names.signalStream, { seq })).toBeNull();
    // nats-server 2.9 answers 10057, the code of any failed delete, with the store's "no message found" as
    // its text; other versions may answer 10043 "sequence not found". Neither is an "already gone" of its own.
    const again = await rejection(() => jsm.streams.deleteMessage(names.signalStream, seq, false));
    expect([10057, 10043]).toContain(jetStreamApiCode(again));
    expect(isTransientJetStreamError(again)).toBe(false);
  });

  it('a request nobody serves is transient (no responders)', async () => {
    const { nc, names } = await session();
    const unanswered = await rejection(() => nc.request(`fed.${names.federation}.nobody`, 'x', { timeout: 2_000 }));
    expect(isTransientJetStreamError(unanswered)).toBe(true);
  });
});
