import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JetStreamBackend } from 'fed/testing';
import { openFederation, sendSignal } from 'fed';
import { jetstreamFederations } from '../../helpers/jetstream-federation.js';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';
import { countedSession } from '../../helpers/jetstream-requests.js';

const SUITE = 'round trips of fed signal send on JetStream (issue #31, row 1), against a real nats-server';

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();
  const federation = async () => {
    const made = await jetstreamFederations(server)(['docs']);
    const backend = made.backend as JetStreamBackend;
    const fed = openFederation(made.root, { backend });
    const counted = await countedSession(backend);
    const registry = await backend.registry.read();
    const send = (extra: { id?: string } = {}, withRegistry = true) =>
      sendSignal(
        fed,
        { to: 'docs', type: 'report', subject: `Status ${randomUUID()}`, body: 'x', ...extra },
        withRegistry ? { registry } : {},
      );
    // The first send opens the streams and buckets; what is counted is a send's own traffic.
    await send();
    return { counted, send, backend };
  };

  it('a send whose registry is known claims its id and publishes in one round trip', async () => {
    const { counted, send } = await federation();
    // The claim (KV create) and the publish go out together; the seq hint is a plain publish, with no reply.
    expect(await counted.measure(() => send())).toMatchObject({ requests: 2, roundTrips: 1 });
  });

  it('fed signal send, which reads the registry first, takes two', async () => {
    const { counted, send } = await federation();
    expect(await counted.measure(() => send({}, false))).toMatchObject({ requests: 3, roundTrips: 2 });
  });

  it('a send with an id the caller chose claims it before publishing: a reused id is refused with nothing published', async () => {
    const { counted, send, backend } = await federation();
    const id = randomUUID();
    expect(await counted.measure(() => send({ id }))).toMatchObject({ requests: 2, roundTrips: 2 });
    const { session } = await backend.streams();
    const before = (await session.jsm.streams.info(session.names.signalStream)).state.messages;
    await expect(send({ id })).rejects.toMatchObject({ code: 'SIGNAL_ID_REUSED' });
    expect((await session.jsm.streams.info(session.names.signalStream)).state.messages).toBe(before);
  });
});
