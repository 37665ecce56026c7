/**
 * The JetStream apply path beside its ceilings (needs nats-server on PATH):
 * - apply: a team actor consuming pending signals through the real consumer, as `fed actors run --once`
 *   does, against a raw JetStream consume loop doing the same essential work with the same client (fetch,
 *   parse, a batch's durable state — a journal line per signal and one state entry —, an exclusive ack per
 *   signal; a batch's publishes in flight together); the file backend's actor beside it. Ratios of times,
 *   interleaved with the ceiling over several rounds. Goal: ≤ 2× the raw loop's time.
 * - apply latency p50/p99: a running actor, signals sent one at a time, each timed from before its send
 *   until the actor reports it applied, saved and acknowledged.
 */
import { randomUUID } from 'node:crypto';
import { runActors, sendSignal, type FederationBackend, type SignalMessage } from '../../src/index.js';
import { createJetStreamBackend, type JetStreamBackend } from '../../src/adapters/jetstream/open-jetstream-backend.js';
import { jetstreamBackendSchema } from '../../src/core/schema/backends/jetstream.js';
import { natsServerMissing, startNatsServer, type NatsServer } from '../helpers/nats-server.js';
import { fmt, percentile, report, reportInterleavedRatios, summarize } from './harness.js';
import { openFederation } from '../../src/engine/context.js';
import { fileFederation, jetstreamFederation, message, removeBenchFederations } from './jetstream-federations.js';

export default async function jetstreamApplyBench(): Promise<void> {
  if (natsServerMissing) {
    process.stdout.write(`  skipped: nats-server not on PATH (${natsServerMissing})\n`);
    return;
  }
  const server = await startNatsServer();
  const backend = createJetStreamBackend({
    root: '/tmp',
    federationName: 'bench',
    backend: jetstreamBackendSchema.parse({ type: 'jetstream', servers: [server.url] }),
  });
  try {
    const { session, acks, lifecycle } = await backend.streams();
    await applyBench(server, session, acks, lifecycle);
    await latencyBench(server);
  } finally {
    await backend.close();
    await server.dispose();
    removeBenchFederations();
  }
}

const APPLIED = 1_000;
const BATCH = 256;
const APPLY_ROUNDS = 3;
const LATENCY_SIGNALS = 100;

type Streams = Awaited<ReturnType<JetStreamBackend['streams']>>;

/** Time (ms) for `fed actors run --once --team docs` to apply `APPLIED` signals sent beforehand (untimed). */
async function actorApplyMs(fed: { root: string; backend: FederationBackend }): Promise<number> {
  for (let i = 0; i < APPLIED; i++) {
    await sendSignal(
      openFederation(fed.root, { backend: fed.backend }),
      { to: 'docs', type: 'question', subject: `question ${i}`, body: `body ${i}` },
      { durable: false },
    );
  }
  const started = performance.now();
  const [result] = await runActors(openFederation(fed.root, { backend: fed.backend }), {
    team: 'docs',
    once: true,
    batchSize: BATCH,
  });
  const ms = performance.now() - started;
  if (result?.acknowledged !== APPLIED) throw new Error(`expected ${APPLIED} acks, got ${result?.acknowledged}`);
  return ms;
}

let rawInboxes = 0;

/**
 * The least a JetStream consumer that applies exactly once must do, with the same client: fetch the
 * inbox's messages (one consumer, batched by bytes), parse each, write each batch's durable state — a
 * journal line per signal (one message each, as fed's journal stream keeps them) and one state entry (a
 * KV put) — then acknowledge each signal exclusively (KV creates); a batch's publishes in flight together.
 * Returns ms for `APPLIED` signals published beforehand (untimed).
 */
async function rawApplyMs({ session, acks, lifecycle }: Streams): Promise<number> {
  const inbox = `raw${++rawInboxes}`;
  const subject = session.names.inboxSubject(inbox, 'meta');
  const journal = `fed.${session.names.federation}.journal.${inbox}`;
  for (let i = 0; i < APPLIED; i++)
    await session.js.publish(subject, JSON.stringify(message(inbox)), { msgID: randomUUID() });
  const started = performance.now();
  const consumer = await session.js.consumers.get(session.names.signalStream, { filter_subjects: subject });
  const messages = await consumer.consume({ max_bytes: 16 * 1024 * 1024 });
  let applied = 0;
  let batch: string[] = [];
  const ack = JSON.stringify({ acknowledged: true, acknowledged_at: new Date().toISOString() });
  for await (const m of messages) {
    batch.push((m.json() as SignalMessage).id);
    const last = m.info.pending === 0;
    if (batch.length === BATCH || last) {
      // The journal keeps one message per line (docs/jetstream.md: What lives where), so its lines are part of the
      // durable state an apply must write: one per signal, published together.
      await Promise.all(
        batch.map((id, i) =>
          session.js.publish(`${journal}.${applied + i + 1}`, JSON.stringify({ seq: applied + i + 1, signal: id }), {
            msgID: `${inbox}.${applied + i + 1}`,
          }),
        ),
      );
      await lifecycle.put(`state.${inbox}`, JSON.stringify({ applied: batch }));
      await Promise.all(batch.map((id) => acks.create(`${inbox}.meta.${id}`, ack)));
      applied += batch.length;
      batch = [];
    }
    if (last) break;
  }
  messages.stop();
  if (applied !== APPLIED) throw new Error(`raw loop applied ${applied} of ${APPLIED}`);
  return performance.now() - started;
}

async function applyBench(
  server: NatsServer,
  session: Streams['session'],
  acks: Streams['acks'],
  lifecycle: Streams['lifecycle'],
): Promise<void> {
  const streams = { session, acks, lifecycle } as Streams;
  await reportInterleavedRatios(
    {
      name: `raw JetStream consume loop (fetch, parse, journal lines + state put, ack creates), ${APPLIED} signals`,
      run: () => rawApplyMs(streams),
    },
    [
      {
        name: `team actor on JetStream, ${APPLIED} signals`,
        run: async () => actorApplyMs(await jetstreamFederation(server)),
        max: 2,
      },
      { name: `team actor on files, ${APPLIED} signals`, run: async () => actorApplyMs(await fileFederation()) },
    ],
    APPLY_ROUNDS,
  );
}

/**
 * Send → applied, one signal at a time, to a running `fed actors run` (its watch wakes it). Measured on
 * JetStream and on files; ms from before each send until the actor reports the signal's step.
 */
async function latencyBench(server: NatsServer): Promise<void> {
  for (const [name, fed] of [
    ['JetStream', await jetstreamFederation(server)],
    ['files', await fileFederation()],
  ] as const) {
    const waiting = new Map<string, () => void>();
    const stop = new AbortController();
    const running = runActors(openFederation(fed.root, { backend: fed.backend }), {
      team: 'docs',
      signal: stop.signal,
      onResult: (result) => {
        for (const step of result.steps) if (step.signal) waiting.get(step.signal.id)?.();
      },
    });
    const samples: number[] = [];
    for (let i = 0; i < LATENCY_SIGNALS; i++) {
      const id = randomUUID();
      const applied = new Promise<void>((resolve) => waiting.set(id, resolve));
      const started = performance.now();
      await sendSignal(openFederation(fed.root, { backend: fed.backend }), {
        id,
        to: 'docs',
        type: 'question',
        subject: `latency ${i}`,
        body: '',
      });
      await applied;
      samples.push(performance.now() - started);
      waiting.delete(id);
    }
    stop.abort();
    await running;
    const sorted = samples.sort((a, b) => a - b);
    const spread = summarize(sorted);
    report({
      name: `apply latency on ${name}, send → applied by a running actor, p50 (${LATENCY_SIGNALS} signals, ${fmt(spread.min)}–${fmt(spread.max)} ms)`,
      value: percentile(sorted, 50),
      unit: 'ms',
    });
    report({ name: `apply latency on ${name}, p99`, value: percentile(sorted, 99), unit: 'ms' });
  }
}
