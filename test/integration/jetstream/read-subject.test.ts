import { afterEach, describe, expect, it } from 'vitest';
import { createJetStreamBackend, type JetStreamBackend, jetstreamBackendSchema, readSubjectSince } from 'fed/testing';
import { onFirstConsumer } from '../../helpers/jetstream-session.js';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE = 'JetStream reads of a subject (real nats-server)';

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();
  const opened: JetStreamBackend[] = [];
  let federations = 0;
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
  });

  async function inboxOf(records: number) {
    const backend = createJetStreamBackend({
      root: '/tmp',
      federationName: `read-${++federations}-${process.pid}`,
      backend: jetstreamBackendSchema.parse({ type: 'jetstream', servers: [server().url] }),
    });
    opened.push(backend);
    const { session } = await backend.streams();
    for (let i = 0; i < records; i++)
      await session.js.publish(session.names.inboxSubject('docs', 'meta'), `record ${i}`);
    return { session, stream: session.names.signalStream, filter: session.names.inboxFilter('docs') };
  }
  const texts = (records: { data: Uint8Array }[]) => records.map((record) => Buffer.from(record.data).toString());

  it('returns the messages after a sequence, in order, and nothing when none is newer', async () => {
    const { session, stream, filter } = await inboxOf(20);
    expect(texts(await readSubjectSince(session, stream, filter, 0))).toEqual(
      Array.from({ length: 20 }, (_, i) => `record ${i}`),
    );
    expect(texts(await readSubjectSince(session, stream, filter, 15))).toEqual([
      'record 15',
      'record 16',
      'record 17',
      'record 18',
      'record 19',
    ]);
    expect(await readSubjectSince(session, stream, filter, 20)).toEqual([]);
  });

  it('the last message removed between the lookup and the read: the read ends at the one before, neither waiting nor failing', async () => {
    const { session, stream, filter } = await inboxOf(20);
    const removing = onFirstConsumer(session, async () => {
      await session.jsm.streams.deleteMessage(stream, 20);
    });
    expect(texts(await readSubjectSince(removing, stream, filter, 0))).toEqual(
      Array.from({ length: 19 }, (_, i) => `record ${i}`),
    );
  });
});
