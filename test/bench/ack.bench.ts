/**
 * Acknowledging one signal by id (issue 12 item 7): `acknowledgeSignal` (what `fed signal ack <id>` runs)
 * in an inbox of 100 000 signals beside the same in an inbox of 10, each call opening the backend afresh
 * as a command does. Goal ≤ 3×: the sent fact of the signal names its file, so the lookup reads that file
 * instead of the inbox. Acks are written without fsync on both sides, so the disk does not hide the
 * lookup's cost; rounds alternate the two inboxes (reportInterleavedRatios).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { acknowledgeSignal, deliveryDirectory, initFederation, onboardTeam, openFileBackend, signalDigest, signalFileName, workspacePaths } from '../../src/index.js';
import type { SentFact, SignalMessage } from '../../src/index.js';
import { reportInterleavedRatios } from './harness.js';

const BIG = 100_000;
const SMALL = 10;
const ROUNDS = 7;
/** Signals acknowledged per measured run (each once: a run never repeats an ack). */
const PER_RUN = 5;

function message(team: string, i: number): SignalMessage {
  return {
    id: `00000000-0000-4000-8${team === 'big' ? '1' : '2'}00-${String(i).padStart(12, '0')}`,
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
async function plant(root: string, team: string, count: number): Promise<{ inbox: string; messages: SignalMessage[] }> {
  const entry = await onboardTeam(root, { domain: team }, { durable: false });
  const inbox = workspacePaths(entry.location).inbox;
  const facts = deliveryDirectory(root);
  mkdirSync(facts, { recursive: true });
  const messages: SignalMessage[] = [];
  for (let i = 0; i < count; i++) {
    const signal = message(team, i);
    writeFileSync(join(inbox, signalFileName(signal)), JSON.stringify(signal));
    const sent: SentFact = { id: signal.id, timestamp: signal.timestamp, from: 'meta', to: team, type: 'report', subject: signal.subject, digest: signalDigest(signal) };
    writeFileSync(join(facts, `${signal.id}.sent.json`), JSON.stringify(sent));
    messages.push(signal);
  }
  return { inbox, messages };
}

export default async function ackBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-ack-'));
  try {
    initFederation(root, {}, {});
    const { messages: big } = await plant(root, 'big', BIG);
    const { inbox: smallInbox, messages: small } = await plant(root, 'small', SMALL);
    // Newest first in the big inbox, oldest-first in the small one; the small inbox is refilled when used up.
    let nextBig = BIG - 1;
    let nextSmall = 0;
    const ackRun = (team: string, next: () => SignalMessage) => async (): Promise<number> => {
      const ids = Array.from({ length: PER_RUN }, () => next().id);
      const started = performance.now();
      for (const id of ids) await acknowledgeSignal(root, team, id, { durable: false }, openFileBackend(root));
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
    await reportInterleavedRatios(
      { name: `ack by id, ${SMALL}-signal inbox`, run: ackRun('small', nextSmallSignal) },
      [{ name: `ack by id, ${BIG.toLocaleString('en')}-signal inbox`, run: ackRun('big', () => big[nextBig--]!), max: 3 }],
      ROUNDS,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
