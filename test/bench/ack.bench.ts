/**
 * Acknowledging one signal by id (issue 12 item 7): `acknowledgeSignal` (what `fed signal ack <id>` runs)
 * in an inbox of 100 000 signals beside the same in an inbox of 10, each call opening the backend afresh
 * as a command does. Goal ≤ 3×: the sent fact of the signal names its file, so the lookup reads that file
 * instead of the inbox. Acks are written without fsync on both sides, so the disk does not hide the
 * lookup's cost; rounds alternate the two inboxes (reportInterleavedRatios). The same on JetStream (with
 * nats-server on PATH), where the send leaves the sequence of the copy as the hint. And on files, a signal
 * another tool wrote (no sent fact) in an inbox of 100 000: the first lookup reads the inbox and builds its
 * id index (timed alone; goal ≤ 0.5 s); after it, goal ≤ 1.5× the 10-signal inbox.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { acknowledgeSignal, initFederation, onboardTeam, openFederation } from 'fed';
import {
  createJetStreamBackend,
  deliveryDirectory,
  emptyRegistry,
  jetstreamBackendSchema,
  openFileBackend,
  type SentFact,
  signalDigest,
  signalFileName,
  updateRegistryIn,
  workspacePaths,
} from 'fed/testing';
import type { RegistryEntry, SignalMessage } from 'fed';
import { natsServerMissing, startNatsServer } from '../helpers/nats-server.js';
import { report, reportInterleavedRatios } from './harness.js';

const BIG = 100_000;
const SMALL = 10;
const ROUNDS = 7;
/** Goal of the first ack by id of a signal another tool wrote into the big inbox (issue 53, P7b). */
const FIRST_FOREIGN_ACK_MS = 500;
/** Signals acknowledged per measured run (each once: a run never repeats an ack). */
const PER_RUN = 5;

function message(team: string, i: number): SignalMessage {
  return {
    id: `00000000-0000-4000-8${{ big: '1', small: '2' }[team] ?? '3'}00-${String(i).padStart(12, '0')}`,
    timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1_000).toISOString(),
    from: 'meta',
    to: team,
    type: 'report',
    subject: `Status ${i}`,
    body: 'x'.repeat(200),
    protocol: 'file-signal-v1',
  };
}

/** `count` unacknowledged signals in `team`'s inbox, each with its sent fact, as a send leaves them (written directly: sending 100 000 would dominate the run). */
async function plant(
  root: string,
  team: string,
  count: number,
  /** Without them, as another tool leaves signals: no sent fact names their files. */
  sentFacts = true,
): Promise<{ inbox: string; messages: SignalMessage[] }> {
  const entry = await onboardTeam(openFederation(root), { domain: team }, { durable: false });
  const inbox = workspacePaths(entry.location).inbox;
  const facts = deliveryDirectory(root);
  mkdirSync(facts, { recursive: true });
  const messages: SignalMessage[] = [];
  for (let i = 0; i < count; i++) {
    const signal = message(team, i);
    writeFileSync(join(inbox, signalFileName(signal)), JSON.stringify(signal));
    messages.push(signal);
    if (!sentFacts) continue;
    const sent: SentFact = {
      id: signal.id,
      timestamp: signal.timestamp,
      from: 'meta',
      to: team,
      type: 'report',
      subject: signal.subject,
      digest: signalDigest(signal),
    };
    writeFileSync(join(facts, `${signal.id}.sent.json`), JSON.stringify(sent));
  }
  return { inbox, messages };
}

/** Sends in flight at once while filling a JetStream inbox. */
const WINDOW = 256;

async function jetstreamAckBench(): Promise<void> {
  if (natsServerMissing) {
    process.stdout.write(`  JetStream: skipped: nats-server not on PATH (${natsServerMissing})\n`);
    return;
  }
  const server = await startNatsServer();
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-ack-jetstream-'));
  const backend = createJetStreamBackend({
    root,
    federationName: 'ackbench',
    backend: jetstreamBackendSchema.parse({ type: 'jetstream', servers: [server.url] }),
  });
  try {
    const entry = (domain: string): RegistryEntry => ({
      domain,
      domainId: domain,
      archetypeId: 'deliverable',
      placementType: 'directory',
      onboardedAt: new Date().toISOString(),
      location: join(root, '.fed', 'teams', domain),
      status: 'active',
    });
    const teams = { big: entry('big'), small: entry('small') };
    await backend.registry.create(emptyRegistry());
    await updateRegistryIn(backend.registry, (registry) => ({ ...registry, teams: Object.values(teams) }));
    const fill = async (domain: 'big' | 'small', count: number): Promise<SignalMessage[]> => {
      const to = { id: domain, entry: teams[domain] };
      const messages = Array.from({ length: count }, (_, i) => message(domain, i));
      for (let start = 0; start < count; start += WINDOW) {
        await Promise.all(
          messages
            .slice(start, start + WINDOW)
            .map((m) => backend.signals.send(m, { from: { id: 'meta', entry: undefined }, to })),
        );
      }
      return messages;
    };
    const big = await fill('big', BIG);
    const small = await fill('small', ROUNDS * 2 * PER_RUN + PER_RUN);
    let nextBig = BIG - 1;
    let nextSmall = 0;
    // Each call opens the inbox anew, as a command does: nothing read before is reused.
    const ackRun = (team: string, next: () => SignalMessage) => async (): Promise<number> => {
      const ids = Array.from({ length: PER_RUN }, () => next().id);
      const started = performance.now();
      for (const id of ids) await acknowledgeSignal(openFederation(root, { backend }), team, id, {});
      return (performance.now() - started) / PER_RUN;
    };
    await reportInterleavedRatios(
      { name: `JetStream: ack by id, ${small.length}-signal inbox`, run: ackRun('small', () => small[nextSmall++]!) },
      [
        {
          name: `JetStream: ack by id, ${BIG.toLocaleString('en')}-signal inbox`,
          run: ackRun('big', () => big[nextBig--]!),
          max: 3,
        },
      ],
      ROUNDS,
    );
  } finally {
    await backend.close();
    await server.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}

export default async function ackBench(): Promise<void> {
  await fileAckBench();
  await jetstreamAckBench();
}

async function fileAckBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-ack-'));
  try {
    initFederation(root, {}, {});
    const { messages: big } = await plant(root, 'big', BIG);
    const { inbox: smallInbox, messages: small } = await plant(root, 'small', SMALL);
    const { messages: foreign } = await plant(root, 'foreign', BIG, false);
    // Newest first in the big inbox, oldest-first in the small one; the small inbox is refilled when used up.
    let nextBig = BIG - 1;
    let nextSmall = 0;
    const ackRun = (team: string, next: () => SignalMessage) => async (): Promise<number> => {
      const ids = Array.from({ length: PER_RUN }, () => next().id);
      const started = performance.now();
      for (const id of ids)
        await acknowledgeSignal(openFederation(root, { backend: openFileBackend(root) }), team, id, { durable: false });
      return (performance.now() - started) / PER_RUN;
    };
    const nextSmallSignal = (): SignalMessage => {
      if (nextSmall === SMALL) {
        // Used up: take the acks away so the same signals are unacknowledged again.
        rmSync(smallInbox, { recursive: true, force: true });
        mkdirSync(smallInbox, { recursive: true });
        for (const signal of small) writeFileSync(join(smallInbox, signalFileName(signal)), JSON.stringify(signal));
        nextSmall = 0;
      }
      return small[nextSmall++]!;
    };
    await ackRun('small', nextSmallSignal)();
    await ackRun('big', () => big[nextBig--]!)();
    // The first lookup in an inbox without sent facts reads it whole and builds its id index: timed alone.
    let nextForeign = BIG - 1;
    const firstStarted = performance.now();
    await acknowledgeSignal(
      openFederation(root, { backend: openFileBackend(root) }),
      'foreign',
      foreign[nextForeign--]!.id,
      {
        durable: false,
      },
    );
    const firstMs = performance.now() - firstStarted;
    report({
      name: `ack by id without a sent fact, ${BIG.toLocaleString('en')}-signal inbox: first lookup (reads the inbox, builds the id index)`,
      value: firstMs,
      unit: 'ms',
      goal: `≤ ${FIRST_FOREIGN_ACK_MS} ms`,
      met: firstMs <= FIRST_FOREIGN_ACK_MS,
    });
    await reportInterleavedRatios(
      { name: `ack by id, ${SMALL}-signal inbox`, run: ackRun('small', nextSmallSignal) },
      [
        {
          name: `ack by id, ${BIG.toLocaleString('en')}-signal inbox`,
          run: ackRun('big', () => big[nextBig--]!),
          max: 3,
        },
        {
          name: `ack by id without a sent fact (after the first lookup), ${BIG.toLocaleString('en')}-signal inbox`,
          run: ackRun('foreign', () => foreign[nextForeign--]!),
          max: 1.5,
        },
      ],
      ROUNDS,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
