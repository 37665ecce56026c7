/**
 * Acknowledging one signal by id (issue 12 item 7): `acknowledgeSignal` (what `fed signal ack <id>` runs)
 * in an inbox of 100 000 signals beside the same in an inbox of 10, each call opening the backend afresh
 * as a command does. Goal ≤ 3×: the sent fact of the signal names its file, so the lookup reads that file
 * instead of the inbox. Acks are written without fsync on both sides, so the disk does not hide the
 * lookup's cost; rounds alternate the two inboxes (reportInterleavedRatios). The same on JetStream (with
 * nats-server on PATH), where the send leaves the sequence of the copy as the hint. A signal another tool
 * wrote, which no sent fact names, is foreign-ack.bench.ts (issue 53, P7b).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { acknowledgeSignal, initFederation, openFederation } from 'fed';
import { createJetStreamBackend, emptyRegistry, jetstreamBackendSchema, updateRegistryIn } from 'fed/testing';
import type { RegistryEntry, SignalMessage } from 'fed';
import { natsServerMissing, startNatsServer } from '../helpers/nats-server.js';
import { fileAckRun, message, PER_RUN, plant, refillingInbox } from './ack-inboxes.js';
import { reportInterleavedRatios } from './harness.js';

const BIG = 100_000;
const SMALL = 10;
const ROUNDS = 7;

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
    const nextSmall = await refillingInbox(root, 'small', SMALL);
    // Newest first in the big inbox, oldest first in the small one.
    let nextBig = BIG - 1;
    const bigRun = fileAckRun(root, 'big', () => big[nextBig--]!);
    const smallRun = fileAckRun(root, 'small', nextSmall);
    await smallRun();
    await bigRun();
    await reportInterleavedRatios(
      { name: `ack by id, ${SMALL}-signal inbox`, run: smallRun },
      [{ name: `ack by id, ${BIG.toLocaleString('en')}-signal inbox`, run: bigRun, max: 3 }],
      ROUNDS,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
