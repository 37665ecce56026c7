import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type JetStreamBackend, TeamInboxConsumer } from 'fed/testing';
import { acknowledgeSignal, applyLifecycleInputs, openFederation, sendSignal } from 'fed';
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
    // Nine at most: when the journal's last line answers before the ack create, the line overlaps the ack.
    expect(cost.requests).toBe(14);
    expect(cost.roundTrips).toBeGreaterThanOrEqual(8);
    expect(cost.roundTrips).toBeLessThanOrEqual(9);
  });

  it('a backlog is applied in batches: one ack create and one journal line per signal, a few requests per batch', async () => {
    const made = await jetstreamFederations(server)(['docs']);
    const backend = made.backend as JetStreamBackend;
    const fed = openFederation(made.root, { backend });
    const registry = await backend.registry.read();
    // The consumer `fed actors run --once` uses, in batches of 10 (the bench applies 1 000 signals in batches of 256).
    const consumer = new TeamInboxConsumer(fed, made.teams.docs!, { durable: false, batchSize: 10 });
    const send = () =>
      sendSignal(fed, { to: 'docs', type: 'question', subject: `Q ${randomUUID()}`, body: 'x' }, { registry });
    await send();
    await consumer.consume();
    for (let i = 0; i < 30; i++) await send();
    const counted = await countedSession(backend);
    const cost = await counted.measure(async () => {
      const result = await consumer.consume();
      expect(result.acknowledged).toBe(30);
    });
    const { names } = (await backend.streams()).session;
    const count = (prefix: string) => cost.subjects.filter((subject) => subject.startsWith(prefix)).length;
    expect({
      ackCreates: count(`$KV.${names.ackBucket}.docs.`),
      journalLines: count(`fed.${names.federation}.journal.docs.`),
      rest: cost.requests - count(`$KV.${names.ackBucket}.docs.`) - count(`fed.${names.federation}.journal.docs.`),
    }).toEqual({
      ackCreates: 30,
      journalLines: 30,
      // Per batch of 10 (7): the lease (get, create, release), the registry and the lifecycle's version, the
      // envelope write, the journal's last line. Per pass (2 passes: the second finds nothing left): the
      // lifecycle's version, the inbox's "last" and "next" lookups of messages and of acks (5); the first
      // reads the rest of the backlog on a consumer (2: the stream's info, the consumer's creation).
      rest: 3 * 7 + 2 * 5 + 2,
    });
    // Whatever a batch's size, its acks are in flight together, and so are its journal lines: a round trip
    // per signal would show here as 30 more. Per batch at most 7 (the lease's get, create and release, the
    // reads, the write, the acks with the journal's last-line lookup, the lines — which still overlap the
    // acks when that lookup answers first, hence a bound); per pass 2, and 2 for the first's consumer.
    expect(cost.roundTrips).toBeLessThanOrEqual(3 * 7 + 2 * 2 + 2);
  });

  it("an ack by id reads the signal's ack from the ack bucket's leader, never with a direct get a replica answers", async () => {
    const made = await jetstreamFederations(server)(['docs']);
    const backend = made.backend as JetStreamBackend;
    const fed = openFederation(made.root, { backend });
    const sent = await sendSignal(fed, { to: 'docs', type: 'question', subject: 'Q', body: 'x' });
    const counted = await countedSession(backend);
    // A replica behind the leader would call the signal unacknowledged after another process acknowledged
    // it, and the apply, reading against a version written after that ack, would take it again.
    const cost = await counted.measure(() => acknowledgeSignal(fed, 'docs', sent.message.id, { durable: false }));
    const bucket = `KV_${(await backend.streams()).session.names.ackBucket}`;
    expect(
      cost.subjects.filter((subject) => subject.startsWith('$JS.API.DIRECT.GET.') && subject.includes(bucket)),
    ).toEqual([]);
    expect(cost.subjects).toContain(`$JS.API.STREAM.MSG.GET.${bucket}`);
  });

  it('once another process wrote, the apply looks each signal it was given up by its sequence: no read of the inbox', async () => {
    const made = await jetstreamFederations(server)(['docs']);
    const backend = made.backend as JetStreamBackend;
    const fed = openFederation(made.root, { backend });
    const team = made.teams.docs!;
    const asked = await sendSignal(fed, { to: 'docs', type: 'question', subject: 'asked', body: 'x' });
    const readAgainst = await backend.lifecycles.version(team);
    const other = await sendSignal(fed, { to: 'docs', type: 'question', subject: 'other', body: 'x' });
    await applyLifecycleInputs(fed, team, [{ source: 'signal', signal: other.message }], { durable: false });
    const counted = await countedSession(backend);
    const cost = await counted.measure(async () => {
      const applied = await applyLifecycleInputs(
        fed,
        team,
        [{ source: 'signal', signal: asked.message, file: asked.file }],
        { durable: false, inboxReadAgainst: readAgainst },
      );
      expect(applied.steps.map((step) => step.outcome)).not.toContain('duplicate');
    });
    const { names } = (await backend.streams()).session;
    expect(cost.subjects).toContain(`$JS.API.DIRECT.GET.${names.signalStream}`);
    expect(cost.subjects.filter((subject) => subject.startsWith('$JS.API.CONSUMER.'))).toEqual([]);
  });

  it('a lookup by sequence counts a copy of an acknowledged id as acknowledged, as a read of the inbox does', async () => {
    const made = await jetstreamFederations(server)(['docs']);
    const backend = made.backend as JetStreamBackend;
    const fed = openFederation(made.root, { backend });
    const sent = await sendSignal(fed, { to: 'docs', type: 'question', subject: 'asked', body: 'x' });
    await acknowledgeSignal(fed, 'docs', sent.message.id, { durable: false });
    // Another tool publishes a copy under the same id, from another sender.
    const { session } = await backend.streams();
    const copy = { ...sent.message, from: 'elsewhere' };
    const { seq } = await session.js.publish(session.names.inboxSubject('docs', 'elsewhere'), JSON.stringify(copy));
    const inbox = backend.signals.inbox({ id: 'docs', entry: made.teams.docs! });
    const listed = (await inbox.list()).signals.find((s) => s.file === String(seq));
    const found = await inbox.lookup(String(seq));
    expect(listed?.message.acknowledged).toBe(true);
    expect(found && 'signal' in found && found.signal.message.acknowledged).toBe(true);
  });
});
