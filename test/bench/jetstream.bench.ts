/**
 * The JetStream backend beside its ceilings, in one run:
 * - durable send and acknowledge through the adapter against a raw JetStream loop with the same client
 *   (publish with a message id; KV create), and the file backend's durable send for comparison. Rounds
 *   alternate ceiling and adapter, so load on a shared machine hits both alike. Goal: ≥ 50 % of the raw
 *   loop for durable send.
 * - apply: a team actor consuming pending signals through the real consumer, as `fed actors run --once`
 *   does, against a raw JetStream consume loop doing the same essential work with the same client (fetch,
 *   parse, a batch's durable state — a journal line per signal and one state entry —, an exclusive ack per signal; a batch's publishes in flight together); the file backend's actor beside
 *   it. Ratios of times, interleaved with the ceiling over several rounds. Goal: ≤ 2× the raw loop's time
 *   (≥ 50 % of its throughput).
 * - apply latency p50/p99: a running actor, signals sent one at a time, each timed from before its send
 *   until the actor reports it applied, saved and acknowledged.
 * Needs nats-server on PATH.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  closeOpenBackends,
  initFederation,
  onboardTeam,
  runActors,
  sendSignal,
  type FederationBackend,
  type SignalMessage,
} from '../../src/index.js';
import { createJetStreamBackend, type JetStreamBackend } from '../../src/adapters/jetstream/open-jetstream-backend.js';
import { emptyRegistry } from '../../src/core/schema/registry.js';
import { jetstreamBackendSchema } from '../../src/core/schema/backends/jetstream.js';
import { openFileBackend } from '../../src/adapters/file/open-file-backend.js';
import { SIGNAL_PROTOCOL } from '../../src/core/schema/signal.js';
import { type SignalParty } from '../../src/core/resolve-party.js';
import { natsServerMissing, startNatsServer, type NatsServer } from '../helpers/nats-server.js';
import { fmt, percentile, report, reportInterleavedRatios, summarize } from './harness.js';
import { openFederation } from '../../src/engine/context.js';

const PER_ROUND = 300;
const ROUNDS = 5;

const message = (to: string): SignalMessage => ({
  id: randomUUID(),
  timestamp: new Date().toISOString(),
  from: 'meta',
  to,
  type: 'report',
  subject: 'bench',
  body: 'x'.repeat(200),
  protocol: SIGNAL_PROTOCOL,
});

async function perSecond(count: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) await op(i);
  return count / ((performance.now() - started) / 1000);
}

export default async function jetstreamBench(): Promise<void> {
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
  const fileRoot = mkdtempSync('/tmp/fed-bench-jetstream-files-');
  try {
    const { session, acks, lifecycle } = await backend.streams();
    initFederation(fileRoot, {}, {});
    const fileTeam = await onboardTeam(openFederation(fileRoot), { domain: 'docs' });
    const files = openFileBackend(fileRoot);
    const meta: SignalParty = { id: 'meta', entry: undefined };
    const docs: SignalParty = { id: 'docs', entry: undefined };
    const rawSend: number[] = [];
    const send: number[] = [];
    const fileSend: number[] = [];
    const rawAck: number[] = [];
    const ack: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      rawSend.push(
        await perSecond(PER_ROUND, () =>
          session.js.publish(session.names.inboxSubject('raw', 'meta'), JSON.stringify(message('raw')), {
            msgID: randomUUID(),
          }),
        ),
      );
      send.push(await perSecond(PER_ROUND, () => backend.signals.send(message('docs'), { from: meta, to: docs })));
      fileSend.push(
        await perSecond(PER_ROUND, () =>
          files.signals.send(message('docs'), { from: meta, to: { id: 'docs', entry: fileTeam } }),
        ),
      );
      rawAck.push(
        await perSecond(PER_ROUND, () =>
          acks.create(`raw.meta.${randomUUID()}`, '{"acknowledged":true,"acknowledged_at":"2026-01-01T00:00:00.000Z"}'),
        ),
      );
      const inbox = backend.signals.inbox(docs);
      const pending = (await inbox.pending()).signals;
      ack.push(await perSecond(pending.length, (i) => inbox.acknowledge([pending[i]!])));
    }
    const line = (name: string, values: number[]) => {
      const s = summarize(values);
      return { name, value: s.median, spread: `${fmt(s.min)}–${fmt(s.max)}` };
    };
    const raw = line('raw JetStream publish loop', rawSend);
    const adapter = line(`durable send through the JetStream adapter, ${ROUNDS}×${PER_ROUND}`, send);
    report({
      name: `${adapter.name} (spread ${adapter.spread})`,
      value: adapter.value,
      unit: 'signals/s',
      ceiling: { name: raw.name, value: raw.value },
      goal: '≥ 50 % of the raw loop',
      met: adapter.value >= 0.5 * raw.value,
    });
    const file = line('durable send through the file backend', fileSend);
    report({
      name: `${file.name} (spread ${file.spread})`,
      value: file.value,
      unit: 'signals/s',
      ceiling: { name: raw.name, value: raw.value },
    });
    const rawAcks = line('raw KV create loop', rawAck);
    const adapterAcks = line('acknowledge through the JetStream adapter, one by one', ack);
    report({
      name: `${adapterAcks.name} (spread ${adapterAcks.spread})`,
      value: adapterAcks.value,
      unit: 'acks/s',
      ceiling: { name: rawAcks.name, value: rawAcks.value },
    });
    await applyBench(server, session, acks, lifecycle);
    await latencyBench(server);
  } finally {
    await backend.close();
    await closeOpenBackends();
    await server.dispose();
    rmSync(fileRoot, { recursive: true, force: true });
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  }
}

const APPLIED = 1_000;
const BATCH = 256;
const APPLY_ROUNDS = 3;
const LATENCY_SIGNALS = 100;

type Streams = Awaited<ReturnType<JetStreamBackend['streams']>>;

const roots: string[] = [];
let federations = 0;

/** A JetStream federation with team docs, its workspace in a temp root, opened as fed's commands open it. */
async function jetstreamFederation(server: NatsServer): Promise<{ root: string; backend: FederationBackend }> {
  const root = mkdtempSync('/tmp/fed-bench-jetstream-apply-');
  roots.push(root);
  writeFileSync(
    join(root, 'federate.config.json'),
    JSON.stringify({
      federationName: `apply${process.pid}_${++federations}`,
      backend: { type: 'jetstream', servers: [server.url] },
    }),
  );
  const backend = openFederation(root).backend;
  await backend.registry.create(emptyRegistry());
  await onboardTeam(openFederation(root), { domain: 'docs' });
  return { root, backend };
}

async function fileFederation(): Promise<{ root: string; backend: FederationBackend }> {
  const root = mkdtempSync('/tmp/fed-bench-jetstream-files-apply-');
  roots.push(root);
  initFederation(root, {}, {});
  await onboardTeam(openFederation(root), { domain: 'docs' });
  return { root, backend: openFileBackend(root) };
}

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
