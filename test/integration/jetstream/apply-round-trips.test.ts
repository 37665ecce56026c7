import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JetStreamBackend } from '../../../src/adapters/jetstream/open-jetstream-backend.js';
import { openFederation } from '../../../src/engine/context.js';
import { TeamInboxConsumer } from '../../../src/engine/actors/consume-inbox.js';
import { sendSignal } from '../../../src/engine/messaging/send-signal.js';
import { jetstreamFederations } from '../../helpers/jetstream-federation.js';
import { countedSession } from '../../helpers/jetstream-requests.js';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE = 'requests per applied signal of a running JetStream actor (issue #31, row 2), against a real nats-server';

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();
  const running = async () => {
    const made = await jetstreamFederations(server)(['docs']);
    const backend = made.backend as JetStreamBackend;
    const fed = openFederation(made.root, { backend });
    const registry = await backend.registry.read();
    const consumer = new TeamInboxConsumer(fed, made.teams.docs!, {
      durable: false,
      // As fed actors run builds it when watching: woken again by each arrival.
      consumesOnArrival: true,
    });
    const send = () =>
      sendSignal(fed, { to: 'docs', type: 'question', subject: `Q ${randomUUID()}`, body: 'x' }, { registry });
    // A running actor has consumed before: its first pass settles the lifecycle and opens the streams.
    await send();
    await consumer.consume();
    await send();
    await consumer.consume();
    return { counted: await countedSession(backend), consumer, send };
  };

  it('a running actor woken by one signal applies, saves and acknowledges it in few requests', async () => {
    const { counted, consumer, send } = await running();
    await send();
    const cost = await counted.measure(async () => {
      const result = await consumer.consume();
      expect(result.acknowledged).toBe(1);
    });
    // The pass: the lifecycle's version (1); the inbox's new messages and acks, each a "last" and a "next"
    // lookup in flight together (1). The apply: the lease (2: get, create); the registry and the
    // lifecycle's version together (1); the envelope write (1); the ack create beside the journal's last
    // line (1); the journal line (1); the lease's release (1). No second pass: the next arrival wakes the
    // actor. Before issue #31: 18 requests in 18 round trips, plus an ordered consumer's pulls per read.
    expect(cost).toMatchObject({ requests: 14, roundTrips: 9 });
  });
});
