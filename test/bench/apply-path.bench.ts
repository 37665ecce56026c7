/**
 * The apply path at scale (issue #12): `fed actors run --once` throughput at 100 k pending vs 10 k, its
 * peak RSS vs a raw consumer of the same inbox, and `fed signal list` of 10 k signals vs raw readdir +
 * read + parse (and vs the feature's ceiling, which validates each file too, and the design's, which also
 * reads each one as fed must: bounded, never through a link). Inboxes are written directly (the setup is not what is measured), one signal per
 * millisecond as a busy sender would. `FED_BENCH_LARGE` sets the large size (default 100 000),
 * `FED_BENCH_ROUNDS` the rounds of the in-process ratios (default 5), `FED_BENCH_APPLY_ROUNDS` the
 * rounds of the consume figures (default 3; a round consumes 2 × (LARGE + SMALL) signals).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { initFederation, listSignals, onboardTeam, openFederation, type SignalMessage } from 'fed';
import {
  ACK_FILE_SUFFIX,
  getTeam,
  isWellFormedAck,
  isWellFormedSignal,
  MAX_SIGNAL_BYTES,
  readFileBounded,
  readRegistry,
  signalFileName,
  toJsonText,
  workspacePaths,
} from 'fed/testing';
import { startFixture } from '../helpers/fixture-process.js';
import { fmt, reportInterleavedRatios, reportRoundRatios, summarize } from './harness.js';

const LARGE = Number(process.env.FED_BENCH_LARGE ?? 100_000);
const SMALL = Math.round(LARGE / 10);
const ROUNDS = Number(process.env.FED_BENCH_ROUNDS ?? 5);
const APPLY_ROUNDS = Number(process.env.FED_BENCH_APPLY_ROUNDS ?? 3);

interface Inbox {
  root: string;
  inbox: string;
}

async function federationWith(signals: number): Promise<Inbox> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-apply-'));
  initFederation(root, {}, {});
  await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
  const inbox = workspacePaths(getTeam(readRegistry(root), 'docs').location).inbox;
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < signals; i++) {
    const message: SignalMessage = {
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      timestamp: new Date(start + i).toISOString(),
      from: 'meta',
      to: 'docs',
      type: 'question',
      subject: `question ${i}`,
      body: `body of question ${i}`,
      protocol: 'file-signal-v1',
    };
    writeFileSync(join(inbox, signalFileName(message)), toJsonText(message));
  }
  // The setup's writes reach the disk before the consume starts: the kernel otherwise flushes 100 k new
  // files during the measured run and not 10 k (measured: fed's 100 k / 10 k throughput 0.31× without
  // this, about 1.0× with it; the raw consumer's 0.95× and 1.2×).
  execFileSync('sync');
  return { root, inbox };
}

async function consumeInChild(
  fed: Inbox,
  mode: 'fed' | 'raw',
): Promise<{ ms: number; maxRssKiB: number; acked: number }> {
  const child = startFixture('bench-consume.mjs', [fed.root, 'docs', mode, fed.inbox]);
  const done = await child.done;
  if (done.code !== 0) throw new Error(`bench-consume ${mode} failed: ${done.stderr}`);
  return JSON.parse(done.stdout) as { ms: number; maxRssKiB: number; acked: number };
}

interface Consumed {
  signalsPerSecond: number;
  maxRssKiB: number;
}

/** One consume of a fresh inbox of `size` signals, in a process of its own; the federation is removed after, unless kept. */
async function consumeFresh(size: number, mode: 'fed' | 'raw', keep?: Inbox[]): Promise<Consumed> {
  const fed = await federationWith(size);
  try {
    const run = await consumeInChild(fed, mode);
    if (run.acked !== size) throw new Error(`${mode}: expected ${size} acks, got ${run.acked}`);
    return { signalsPerSecond: size / (run.ms / 1000), maxRssKiB: run.maxRssKiB };
  } finally {
    if (keep) keep.push(fed);
    else rmSync(fed.root, { recursive: true, force: true });
  }
}

/** What fed checks of a signal or ack file's JSON before using it (the schema only judges what fails this). */
function valid(name: string, json: unknown): boolean {
  return name.endsWith(ACK_FILE_SUFFIX) ? isWellFormedAck(json) : isWellFormedSignal(json);
}

/** A box file's text as fed reads it (see readBoxFile). */
function boundedText(path: string): string {
  const read = readFileBounded(path, { maxBytes: MAX_SIGNAL_BYTES, noFollow: true });
  if (!read.ok) throw new Error(`${path}: ${read.problem}`);
  return read.bytes.toString('utf8');
}

export default async function applyPathBench(): Promise<void> {
  const kept: Inbox[] = [];
  try {
    // Throughput and memory over rounds. In each round fed and the raw consumer alternate at each size
    // (who goes first alternates too), so load that comes and goes hits both alike; the raw consumer's own
    // slow-down from 10 k to 100 k (a directory of 200 k entries) is shown beside fed's.
    const fedScaling: number[] = [];
    const rawScaling: number[] = [];
    const fedVsRaw: number[] = [];
    const rss: number[] = [];
    const fedLargeRates: number[] = [];
    for (let round = 0; round < APPLY_ROUNDS; round++) {
      const order: Array<'fed' | 'raw'> = round % 2 ? ['fed', 'raw'] : ['raw', 'fed'];
      const at = { fed: new Map<number, Consumed>(), raw: new Map<number, Consumed>() };
      for (const size of [SMALL, LARGE]) {
        // The first small federation fed consumed is kept, with its acks, for the list figure below.
        for (const mode of order)
          at[mode].set(
            size,
            await consumeFresh(size, mode, mode === 'fed' && size === SMALL && kept.length === 0 ? kept : undefined),
          );
      }
      const rate = (mode: 'fed' | 'raw', size: number) => at[mode].get(size)!.signalsPerSecond;
      fedLargeRates.push(rate('fed', LARGE));
      fedScaling.push(rate('fed', LARGE) / rate('fed', SMALL));
      rawScaling.push(rate('raw', LARGE) / rate('raw', SMALL));
      fedVsRaw.push(rate('fed', LARGE) / rate('raw', LARGE));
      rss.push(at.fed.get(LARGE)!.maxRssKiB / at.raw.get(LARGE)!.maxRssKiB);
    }
    const rounds = `${APPLY_ROUNDS} rounds, non-durable, median ${fmt(summarize(fedLargeRates).median)} signals/s at ${LARGE}`;
    reportRoundRatios(`actors run --once: throughput at ${LARGE} pending / at ${SMALL} (${rounds})`, fedScaling, {
      text: '≥ 0.8×',
      met: (median) => median >= 0.8,
    });
    reportRoundRatios(`raw consumer: throughput at ${LARGE} pending / at ${SMALL}, the same rounds`, rawScaling);
    reportRoundRatios(`actors run --once / raw consumer: throughput at ${LARGE} pending`, fedVsRaw);
    reportRoundRatios(`actors run --once / raw consumer: peak RSS at ${LARGE} pending`, rss, {
      text: '≤ 2×',
      met: (median) => median <= 2,
    });

    // List of SMALL signals (with their acks, written by the consume above) vs the raw read of the same files.
    const small = kept[0]!;
    const names = () => readdirSync(small.inbox);
    const rawList = () => {
      const started = performance.now();
      for (const name of names()) JSON.parse(readFileSync(join(small.inbox, name), 'utf8'));
      return performance.now() - started;
    };
    const ourList = async () => {
      const started = performance.now();
      await listSignals(openFederation(small.root), { team: 'docs' });
      return performance.now() - started;
    };
    await reportInterleavedRatios(
      { name: `raw readdir + read + JSON.parse of ${SMALL} signals and acks`, run: rawList },
      [{ name: `fed signal list of ${SMALL}`, run: ourList, max: 1.5 }],
      ROUNDS,
    );
    // The feature's ceiling: fed must validate what it lists, so the raw read also checks each file with
    // the quick check fed uses. The design's adds how fed reads a file an agent may have planted: never
    // through a link, never blocking, a regular file within the size limit (readFileBounded).
    const validList = (read: (path: string) => string) => () => {
      const started = performance.now();
      for (const name of names()) if (!valid(name, JSON.parse(read(join(small.inbox, name))))) throw new Error(name);
      return performance.now() - started;
    };
    await reportInterleavedRatios(
      {
        name: `the feature's: readdir + read + JSON.parse + validity check of ${SMALL} signals and acks`,
        run: validList((path) => readFileSync(path, 'utf8')),
      },
      [{ name: `fed signal list of ${SMALL}`, run: ourList }],
      ROUNDS,
    );
    await reportInterleavedRatios(
      {
        name: `the design's: readdir + bounded no-follow read + JSON.parse + validity check of ${SMALL} signals and acks`,
        run: validList(boundedText),
      },
      [{ name: `fed signal list of ${SMALL}`, run: ourList }],
      ROUNDS,
    );
  } finally {
    for (const fed of kept) rmSync(fed.root, { recursive: true, force: true });
  }
}
