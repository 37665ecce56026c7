/**
 * Issue 53, P7b: acknowledging by id a signal another tool wrote (no sent fact names its file) into an
 * inbox of 100 000 signals, as `fed signal ack <id>` does (`acknowledgeSignal`, the federation opened per
 * ack, no fsync).
 *
 * - The first ack reads the inbox and builds its id index: goal ≤ 0.5 s. Each round drops the index and
 *   acknowledges another signal, between two runs of a raw reader doing the essential work of any index
 *   of ids (list the folder, read and parse every file), the bound the machine gives in the same minute.
 * - Later acks (the index built): goal ≤ 1.5× an ack in a 10-signal inbox whose sent facts name the
 *   files, interleaved round by round (reportInterleavedRatios).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { initFederation } from 'fed';
import type { SignalMessage } from 'fed';
import { fileAckRun, plant, refillingInbox } from './ack-inboxes.js';
import { report, reportInterleavedRatios, reportRoundRatios, summarize } from './harness.js';

const BIG = 100_000;
const SMALL = 10;
const ROUNDS = 21;
const FIRST_ROUNDS = 3;
/** Goal of the first ack by id of a signal another tool wrote into the big inbox. */
const FIRST_ACK_MS = 500;

/** The essential work of indexing a box by id: list it, read and parse each file. */
function rawIndexRead(inbox: string): number {
  const started = performance.now();
  const ids = new Map<string, string>();
  for (const name of readdirSync(inbox)) {
    if (!name.endsWith('.json')) continue;
    ids.set((JSON.parse(readFileSync(join(inbox, name), 'utf8')) as SignalMessage).id, name);
  }
  return performance.now() - started;
}

export default async function foreignAckBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-foreign-ack-'));
  try {
    initFederation(root, {}, {});
    const nextSmall = await refillingInbox(root, 'small', SMALL);
    const { inbox, state, messages } = await plant(root, 'foreign', BIG, false);
    // Newest first: each ack is of a signal not acknowledged before.
    let next = BIG - 1;
    const nextForeign = (): SignalMessage => messages[next--]!;
    const firstAck = fileAckRun(root, 'foreign', nextForeign, 1);

    const firsts: number[] = [];
    const ratios: number[] = [];
    const bounds: number[] = [];
    for (let round = 0; round < FIRST_ROUNDS; round++) {
      const before = rawIndexRead(inbox);
      rmSync(join(state, 'inbox-ids'), { recursive: true, force: true });
      const first = await firstAck();
      const after = rawIndexRead(inbox);
      firsts.push(first);
      bounds.push(before, after);
      ratios.push(first / ((before + after) / 2));
    }
    const first = summarize(firsts);
    report({
      name: `ack by id without a sent fact, ${BIG.toLocaleString('en')}-signal inbox: first lookup (reads the inbox, builds the id index)`,
      value: first.median,
      unit: 'ms',
      spread: first,
      rounds: FIRST_ROUNDS,
      goal: `≤ ${FIRST_ACK_MS} ms`,
      met: first.median <= FIRST_ACK_MS,
    });
    const bound = summarize(bounds);
    report({
      name: `raw index read of the same inbox: list it, read and parse every file (bound)`,
      value: bound.median,
      unit: 'ms',
      spread: bound,
      rounds: FIRST_ROUNDS,
    });
    reportRoundRatios('first lookup / raw index read, time', ratios);

    const smallRun = fileAckRun(root, 'small', nextSmall);
    const laterRun = fileAckRun(root, 'foreign', nextForeign);
    await smallRun();
    await laterRun();
    await reportInterleavedRatios(
      { name: `ack by id, ${SMALL}-signal inbox`, run: smallRun },
      [
        {
          name: `ack by id without a sent fact (the index built), ${BIG.toLocaleString('en')}-signal inbox`,
          run: laterRun,
          max: 1.5,
        },
      ],
      ROUNDS,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
