/**
 * The JetStream send path beside its ceilings (needs nats-server on PATH), interleaved round by round so
 * that load on a shared machine hits both alike:
 * - send: `sendSignal`, what `fed signal send` runs (minus process start-up: the registry read, the id
 *   claim, the publish); the same in a process that sends many through one context (which then watches
 *   the registry by itself) and in a long-running context (`fed mcp`, `fed actors run`, `fed ui`, the
 *   launcher, `fed run`: the registry watched, no read); and with the registry known (a caller that
 *   passes it) — against (a) a raw KV create of the claim and a publish of the signal with the same
 *   client, the feature's ceiling (an id used once, a signal stored once), and (b) a bare publish. Goal:
 *   ≥ 0.8× the speed of (a) where a process sends many.
 * - the one-shot send (a registry read per send) against (c) a raw KV get of the registry, then (a): a send
 *   must check its recipient in the registry before it claims or publishes anything, so (c) is its
 *   ceiling, and (c) against (a) the bound its ratio to (a) can reach — three server requests where (a)
 *   makes two (the 0.7× once asked of it lies above that bound here: 0.60–0.65× in the runs that found it).
 *   Goal: ≥ 0.8× the speed of (c), as for the other sends.
 * - acknowledge: one by one through the adapter against a raw KV create loop.
 * The apply path is in jetstream-apply.bench.ts.
 */
import { randomUUID } from 'node:crypto';
import { closeOpenBackends, openFederation, sendSignal } from 'fed';
import type { JetStreamBackend, SignalParty } from 'fed/testing';
import { natsServerMissing, startNatsServer } from '../helpers/nats-server.js';
import { fmt, report, reportInterleavedRatios, reportRoundRatios, summarize } from './harness.js';
import { jetstreamFederation, message, removeBenchFederations } from './jetstream-federations.js';

// 300 sends a run (~0.1–0.2 s): with 100 (~35 ms) one scheduler hiccup moved a round's ratio by a third.
const SENDS_PER_RUN = 300;
const SEND_ROUNDS = 9;
const ACKS_PER_ROUND = 300;
const ACK_ROUNDS = 5;

/** Time (ms) of `count` runs of `op`, one after another. */
function timed(count: number, op: () => Promise<unknown>): () => Promise<number> {
  return async () => {
    const started = performance.now();
    for (let i = 0; i < count; i++) await op();
    return performance.now() - started;
  };
}

const ONE_SHOT = 'fed signal send path (sendSignal, federation opened per send: registry read + id claim + publish)';

/**
 * The one-shot send against both ceilings, interleaved round by round: (a) two requests, (c) three — the
 * registry read first. (c)'s speed against (a) is the bound the send's ratio to (a) can reach.
 */
async function reportOneShot(
  oneShot: () => Promise<number>,
  raw: () => Promise<number>,
  rawWithRead: () => Promise<number>,
): Promise<void> {
  const toRaw: number[] = [];
  const toRead: number[] = [];
  const bound: number[] = [];
  for (let round = 0; round < SEND_ROUNDS; round++) {
    const rawBefore = await raw();
    const readBefore = await rawWithRead();
    const sent = await oneShot();
    const readAfter = await rawWithRead();
    const rawAfter = await raw();
    const rawMs = (rawBefore + rawAfter) / 2;
    const readMs = (readBefore + readAfter) / 2;
    toRaw.push(rawMs / sent);
    toRead.push(readMs / sent);
    bound.push(rawMs / readMs);
  }
  reportRoundRatios(
    `raw registry get + KV create + publish / raw KV create + publish, speed: the bound for a send that reads first`,
    bound,
  );
  reportRoundRatios(`${ONE_SHOT} / raw KV create + publish, speed`, toRaw);
  reportRoundRatios(`${ONE_SHOT} / raw registry get + KV create + publish, speed`, toRead, {
    text: '≥ 0.8×',
    met: (median) => median >= 0.8,
  });
}

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
  try {
    const { root, backend } = await jetstreamFederation(server);
    // What `fed signal send` runs: a federation opened for the one send, which reads the registry.
    const oneShot = () => openFederation(root, { backend });
    // A process that sends many through one context (a library caller): it watches the registry by itself
    // from its second read on.
    const many = openFederation(root, { backend });
    // A long-running process's context: its registry watched from the start.
    const watched = openFederation(root, { backend });
    watched.watchRegistry();
    // A caller that passes the registry it read: no check of the context's own.
    const known = openFederation(root, { backend });
    const { session, delivery, acks, registry: registryBucket } = await (backend as JetStreamBackend).streams();
    const registry = await backend.registry.read();
    const text = JSON.stringify(message('raw'));
    const rawSubject = session.names.inboxSubject('raw', 'meta');
    const send = (context: () => ReturnType<typeof openFederation>, known: boolean) =>
      timed(SENDS_PER_RUN, () =>
        sendSignal(
          context(),
          { to: 'docs', type: 'report', subject: 'bench', body: 'x'.repeat(200) },
          known ? { registry } : {},
        ),
      );
    // The first sends of the watched and the sending context read the registry and fill their copies.
    await send(() => watched, false)();
    await send(() => many, false)();
    const oneShotPath = send(oneShot, false);
    const sendPaths = [
      {
        name: 'sendSignal in a process that sends many (one context, not told to watch: claim + publish)',
        run: send(() => many, false),
        min: 0.8,
      },
      {
        name: 'sendSignal in a long-running context (registry watched: claim + publish)',
        run: send(() => watched, false),
        min: 0.8,
      },
      { name: 'sendSignal, registry known (claim + publish)', run: send(() => known, true), min: 0.7 },
    ];
    const rawCreatePublish = async () => {
      const id = randomUUID();
      await delivery.create(`${id}.sent`, text);
      await session.js.publish(rawSubject, text, { msgID: id });
    };
    const raw = timed(SENDS_PER_RUN, rawCreatePublish);
    process.stdout.write(`  ${SENDS_PER_RUN} sends per run, ${SEND_ROUNDS} rounds\n`);
    await reportInterleavedRatios({ name: 'raw KV create + publish', run: raw }, sendPaths, SEND_ROUNDS);
    await reportOneShot(
      oneShotPath,
      raw,
      timed(SENDS_PER_RUN, async () => {
        // The registry's value, parsed: where the recipient is looked up (the store's key is `registry`).
        JSON.parse((await registryBucket.get('registry'))!.string());
        await rawCreatePublish();
      }),
    );
    await reportInterleavedRatios(
      {
        name: 'bare publish',
        run: timed(SENDS_PER_RUN, () => session.js.publish(rawSubject, text, { msgID: randomUUID() })),
      },
      [{ name: ONE_SHOT, run: oneShotPath }, ...sendPaths.map(({ name, run }) => ({ name, run }))],
      SEND_ROUNDS,
    );

    const docs: SignalParty = { id: 'docs', entry: registry.teams.find((t) => t.domainId === 'docs') };
    const rawAck: number[] = [];
    const ack: number[] = [];
    for (let round = 0; round < ACK_ROUNDS; round++) {
      for (let i = 0; i < ACKS_PER_ROUND; i++)
        await backend.signals.send(message('docs'), { from: { id: 'meta', entry: undefined }, to: docs });
      rawAck.push(
        await perSecond(ACKS_PER_ROUND, () =>
          acks.create(`raw.meta.${randomUUID()}`, '{"acknowledged":true,"acknowledged_at":"2026-01-01T00:00:00.000Z"}'),
        ),
      );
      const inbox = backend.signals.inbox(docs);
      const pending = (await inbox.pending()).signals;
      ack.push(await perSecond(pending.length, (i) => inbox.acknowledge([pending[i]!])));
    }
    const rawAcks = summarize(rawAck);
    const adapterAcks = summarize(ack);
    report({
      name: `acknowledge through the JetStream adapter, one by one (spread ${fmt(adapterAcks.min)}–${fmt(adapterAcks.max)})`,
      value: adapterAcks.median,
      unit: 'acks/s',
      ceiling: { name: 'raw KV create loop', value: rawAcks.median },
    });
  } finally {
    await closeOpenBackends();
    await server.dispose();
    removeBenchFederations();
  }
}
