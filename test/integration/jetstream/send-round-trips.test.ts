import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JetStreamBackend } from '../../../src/adapters/jetstream/open-jetstream-backend.js';
import { openFederation } from '../../../src/engine/context.js';
import { sendSignal } from '../../../src/engine/messaging/send-signal.js';
import { jetstreamFederations } from '../../helpers/jetstream-federation.js';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE = 'round trips of fed signal send on JetStream (issue #31, row 1), against a real nats-server';

/**
 * Counts what a send costs on the wire: every request–reply of the connection (a KV get or create, a
 * publish, a stream request), and the round trips they take — a request made while another is still
 * waiting for its reply rides in the same round trip. Deterministic: a reply needs the socket, so requests
 * made in one turn of the event loop are all out before any reply is read.
 */
async function countedSession(backend: JetStreamBackend) {
  const { session } = await backend.streams();
  const nc = session.nc;
  const request = nc.request.bind(nc);
  const counts = { requests: 0, roundTrips: 0 };
  let inFlight = 0;
  nc.request = async (...args: Parameters<typeof nc.request>) => {
    counts.requests++;
    if (inFlight++ === 0) counts.roundTrips++;
    try {
      return await request(...args);
    } finally {
      inFlight--;
    }
  };
  return {
    measure: async (op: () => Promise<unknown>) => {
      counts.requests = 0;
      counts.roundTrips = 0;
      await op();
      return { ...counts };
    },
  };
}

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
    expect(await counted.measure(() => send())).toEqual({ requests: 2, roundTrips: 1 });
  });

  it('fed signal send, which reads the registry first, takes two', async () => {
    const { counted, send } = await federation();
    expect(await counted.measure(() => send({}, false))).toEqual({ requests: 3, roundTrips: 2 });
  });

  it('a send with an id the caller chose claims it before publishing: a reused id is refused with nothing published', async () => {
    const { counted, send, backend } = await federation();
    const id = randomUUID();
    expect(await counted.measure(() => send({ id }))).toEqual({ requests: 2, roundTrips: 2 });
    const { session } = await backend.streams();
    const before = (await session.jsm.streams.info(session.names.signalStream)).state.messages;
    await expect(send({ id })).rejects.toMatchObject({ code: 'SIGNAL_ID_REUSED' });
    expect((await session.jsm.streams.info(session.names.signalStream)).state.messages).toBe(before);
  });
});
