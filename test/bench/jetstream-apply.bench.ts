/**
 * The JetStream apply path beside its ceilings (needs nats-server on PATH):
 * - apply: a team actor consuming pending signals through the real consumer, as `fed actors run --once`
 *   does, against a raw JetStream consume loop doing the same essential work with the same client (fetch,
 *   parse, a batch's durable state — one state entry written by compare-and-swap, then a journal line per
 *   signal —, an exclusive ack per signal; what may overlap in flight together); the file backend's actor
 *   beside it. Ratios of times, interleaved with the ceiling over `APPLY_ROUNDS` rounds. Goal: ≤ 2× the
 *   raw loop's time.
 * - apply latency p50/p99: a running `fed actors run`, signals sent one at a time, each timed from before
 *   its send until the actor reports it applied, saved and acknowledged; beside a raw live consumer (handed
 *   each stored message, writing a state and an ack per signal). Goal on JetStream: p50 ≤ 5 ms, p99 ≤ 20 ms.
 */
import { randomUUID } from 'node:crypto';
import type { DeliverPolicy } from '@nats-io/jetstream';
import { type FederationBackend, openFederation, runActors, sendSignal, type SignalMessage } from 'fed';
import { createJetStreamBackend, type JetStreamBackend, jetstreamBackendSchema } from 'fed/testing';
import { natsServerMissing, startNatsServer, type NatsServer } from '../helpers/nats-server.js';
import { percentile, report, reportInterleavedRatios, summarize } from './harness.js';
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
    await latencyBench(server, { session, acks, lifecycle } as Streams);
  } finally {
    await backend.close();
    await server.dispose();
    removeBenchFederations();
  }
}

const APPLIED = 1_000;
const BATCH = 256;
// A round is ~2 s (the sends before each timed run are most of it): 15 rounds keep the bench well within a
// minute, and a median of 15 ratios does not move with the odd round the shared machine slows (the
// ceiling's spread over 3 rounds was 42–159 ms).
const APPLY_ROUNDS = 15;
const LATENCY_SIGNALS = 50;
const LATENCY_ROUNDS = 5;
const LATENCY_P50_GOAL_MS = 5;
const LATENCY_P99_GOAL_MS = 20;

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
 * inbox's messages (one consumer, batched by bytes), parse each, write each batch's durable state — one
 * state entry holding the batch's ids and journal lines, by compare-and-swap (a KV update at the revision
 * read or written last: a second writer must not land), then the journal lines, one message each as fed's journal
 * stream keeps them — and acknowledge each signal exclusively (KV creates). What only needs the state
 * entry durable (the lines, the acks) is in flight together, as fed's are. Returns ms for `APPLIED`
 * signals published beforehand (untimed).
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
  // The state is read first, as a consumer after a restart must (it says what was applied), and written at
  // the revision read.
  let revision = (await lifecycle.get(`state.${inbox}`))?.revision ?? 0;
  let applied = 0;
  let batch: string[] = [];
  const ack = JSON.stringify({ acknowledged: true, acknowledged_at: new Date().toISOString() });
  for await (const m of messages) {
    batch.push((m.json() as SignalMessage).id);
    const last = m.info.pending === 0;
    if (batch.length === BATCH || last) {
      const lines = batch.map((id, i) => ({ seq: applied + i + 1, signal: id }));
      const state = JSON.stringify({ applied: batch, journal: lines });
      // The state entry holds the lines, so a crash before they are published loses none (fed's envelope
      // carries its journal tail the same way): the lines and the acks both follow the write, together.
      revision =
        revision === 0
          ? await lifecycle.create(`state.${inbox}`, state)
          : await lifecycle.update(`state.${inbox}`, state, revision);
      await Promise.all([
        ...lines.map((line) =>
          session.js.publish(`${journal}.${line.seq}`, JSON.stringify(line), { msgID: `${inbox}.${line.seq}` }),
        ),
        ...batch.map((id) => acks.create(`${inbox}.meta.${id}`, ack)),
      ]);
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
      name: `raw JetStream consume loop (fetch, parse, state CAS, journal lines + ack creates), ${APPLIED} signals`,
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

/** One running actor (`fed actors run --team docs`, steps streamed as it reports them) and how to time a send to it. */
async function runningActor(fed: { root: string; backend: FederationBackend }): Promise<{
  sendAndWait: (i: number) => Promise<number>;
  stop: () => Promise<void>;
}> {
  const waiting = new Map<string, () => void>();
  const stop = new AbortController();
  const running = runActors(openFederation(fed.root, { backend: fed.backend }), {
    team: 'docs',
    signal: stop.signal,
    streamSteps: true,
    onResult: (result) => {
      for (const step of result.steps) if (step.signal) waiting.get(step.signal.id)?.();
    },
  });
  return {
    sendAndWait: async (i) => {
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
      waiting.delete(id);
      return performance.now() - started;
    },
    stop: async () => {
      stop.abort();
      await running;
    },
  };
}

/**
 * The least a live JetStream consumer must do per signal, with the same client: a consumer that is handed
 * each message once stored, and for each writes its durable state (a journal line, a state put) and
 * acknowledges it exclusively (a KV create). Times from before the publish until the ack is created.
 */
async function rawLiveConsumer({ session, acks, lifecycle }: Streams): Promise<{
  sendAndWait: (i: number) => Promise<number>;
  stop: () => Promise<void>;
}> {
  const inbox = `rawlive${++rawInboxes}`;
  const subject = session.names.inboxSubject(inbox, 'meta');
  const journal = `fed.${session.names.federation}.journal.${inbox}`;
  const consumer = await session.js.consumers.get(session.names.signalStream, {
    filter_subjects: subject,
    deliver_policy: 'new' as DeliverPolicy,
  });
  const messages = await consumer.consume();
  const waiting = new Map<string, () => void>();
  const ack = JSON.stringify({ acknowledged: true, acknowledged_at: new Date().toISOString() });
  let applied = 0;
  const loop = (async () => {
    for await (const m of messages) {
      const id = (m.json() as SignalMessage).id;
      applied++;
      await session.js.publish(`${journal}.${applied}`, JSON.stringify({ seq: applied, signal: id }), {
        msgID: `${inbox}.${applied}`,
      });
      await lifecycle.put(`state.${inbox}`, JSON.stringify({ applied: [id] }));
      await acks.create(`${inbox}.meta.${id}`, ack);
      waiting.get(id)?.();
    }
  })();
  return {
    sendAndWait: async () => {
      const signal = message(inbox);
      const done = new Promise<void>((resolve) => waiting.set(signal.id, resolve));
      const started = performance.now();
      await session.js.publish(subject, JSON.stringify(signal), { msgID: randomUUID() });
      await done;
      waiting.delete(signal.id);
      return performance.now() - started;
    },
    stop: async () => {
      messages.stop();
      await loop;
    },
  };
}

/**
 * Send → applied, one signal at a time, to a running `fed actors run` (its inbox's arrivals wake it), on
 * JetStream and on files, beside the raw live consumer: interleaved round by round, each round
 * `LATENCY_SIGNALS` signals per path; the rounds' p50 and p99, their median and spread.
 */
async function latencyBench(server: NatsServer, streams: Streams): Promise<void> {
  const paths = [
    { name: 'raw JetStream live consumer (state + ack per signal)', actor: await rawLiveConsumer(streams) },
    { name: 'fed actors run on JetStream', actor: await runningActor(await jetstreamFederation(server)), goal: true },
    { name: 'fed actors run on files', actor: await runningActor(await fileFederation()) },
  ];
  const p50s = paths.map(() => [] as number[]);
  const p99s = paths.map(() => [] as number[]);
  try {
    for (let round = 0; round < LATENCY_ROUNDS; round++) {
      for (const [p, path] of paths.entries()) {
        const samples: number[] = [];
        for (let i = 0; i < LATENCY_SIGNALS; i++) samples.push(await path.actor.sendAndWait(i));
        const sorted = samples.sort((a, b) => a - b);
        p50s[p]!.push(percentile(sorted, 50));
        p99s[p]!.push(percentile(sorted, 99));
      }
    }
  } finally {
    for (const path of paths) await path.actor.stop();
  }
  const raw = { p50: summarize(p50s[0]!).median, p99: summarize(p99s[0]!).median };
  paths.forEach((path, p) => {
    for (const [which, values, goal] of [
      ['p50', p50s[p]!, LATENCY_P50_GOAL_MS],
      ['p99', p99s[p]!, LATENCY_P99_GOAL_MS],
    ] as const) {
      const s = summarize(values);
      report({
        name: `apply latency, send → applied, ${path.name}, ${which} (${LATENCY_SIGNALS} signals a round)`,
        value: s.median,
        unit: 'ms',
        spread: s,
        rounds: values.length,
        ...(p > 0 && { ceiling: { name: `raw live consumer ${which}`, value: raw[which] } }),
        ...(path.goal && { goal: `≤ ${goal} ms`, met: s.median <= goal }),
      });
    }
  });
}
