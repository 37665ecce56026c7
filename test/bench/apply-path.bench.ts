/**
 * The apply path at scale (issue #12): `fed actors run --once` throughput at 100 k pending vs 10 k, its
 * peak RSS vs a raw consumer of the same inbox, and `fed signal list` of 10 k signals vs raw readdir +
 * read + parse. Inboxes are written directly (the setup is not what is measured), one signal per
 * millisecond as a busy sender would. `FED_BENCH_LARGE` sets the large size (default 100 000),
 * `FED_BENCH_ROUNDS` the rounds of the in-process ratios (default 5).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getTeam, initFederation, listSignals, onboardTeam, readRegistry, signalFileName, toJsonText, workspacePaths, type SignalMessage } from '../../src/index.js';
import { startFixture } from '../helpers/fixture-process.js';
import { fmt, report, reportInterleavedRatios } from './harness.js';

const LARGE = Number(process.env.FED_BENCH_LARGE ?? 100_000);
const SMALL = Math.round(LARGE / 10);
const ROUNDS = Number(process.env.FED_BENCH_ROUNDS ?? 5);

interface Inbox {
  root: string;
  inbox: string;
}

async function federationWith(signals: number): Promise<Inbox> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-apply-'));
  initFederation(root, {}, {});
  await onboardTeam(root, { domain: 'docs' }, { durable: false });
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
  return { root, inbox };
}

async function consumeInChild(fed: Inbox, mode: 'fed' | 'raw'): Promise<{ ms: number; maxRssKiB: number; acked: number }> {
  const child = startFixture('bench-consume.mjs', [fed.root, 'docs', mode, fed.inbox]);
  const done = await child.done;
  if (done.code !== 0) throw new Error(`bench-consume ${mode} failed: ${done.stderr}`);
  return JSON.parse(done.stdout) as { ms: number; maxRssKiB: number; acked: number };
}

export default async function applyPathBench(): Promise<void> {
  const made: Inbox[] = [];
  try {
    // Throughput and memory, each run in a process of its own: small, large, small again (so load that
    // comes and goes hits both sizes), then the raw consumer of a large inbox.
    const small = await federationWith(SMALL);
    const large = await federationWith(LARGE);
    const smallAgain = await federationWith(SMALL);
    const rawLarge = await federationWith(LARGE);
    made.push(small, large, smallAgain, rawLarge);
    const before = await consumeInChild(small, 'fed');
    const ours = await consumeInChild(large, 'fed');
    const after = await consumeInChild(smallAgain, 'fed');
    const raw = await consumeInChild(rawLarge, 'raw');
    for (const [size, run] of [[SMALL, before], [LARGE, ours], [SMALL, after]] as const) {
      if (run.acked !== size) throw new Error(`expected ${size} acks, got ${run.acked}`);
    }
    const perSecond = (n: number, ms: number) => n / (ms / 1000);
    const smallRate = (perSecond(SMALL, before.ms) + perSecond(SMALL, after.ms)) / 2;
    const ratio = perSecond(LARGE, ours.ms) / smallRate;
    report({
      name: `actors run --once: throughput at ${LARGE} pending / at ${SMALL} (${fmt(perSecond(LARGE, ours.ms))} vs ${fmt(smallRate)} signals/s, non-durable; raw consumer at ${LARGE}: ${fmt(perSecond(LARGE, raw.ms))})`,
      value: ratio,
      unit: '×',
      goal: '≥ 0.8×',
      met: ratio >= 0.8,
    });
    const rss = ours.maxRssKiB / raw.maxRssKiB;
    report({
      name: `actors run --once: peak RSS at ${LARGE} pending / raw consumer (${fmt(ours.maxRssKiB / 1024)} vs ${fmt(raw.maxRssKiB / 1024)} MiB)`,
      value: rss,
      unit: '×',
      goal: '≤ 2×',
      met: rss <= 2,
    });

    // List of SMALL signals (with their acks, written by the consume above) vs the raw read of the same files.
    const rawList = () => {
      const started = performance.now();
      for (const name of readdirSync(small.inbox)) JSON.parse(readFileSync(join(small.inbox, name), 'utf8'));
      return performance.now() - started;
    };
    const ourList = async () => {
      const started = performance.now();
      await listSignals(small.root, { team: 'docs' });
      return performance.now() - started;
    };
    await reportInterleavedRatios({ name: `raw readdir + read + JSON.parse of ${SMALL} signals and acks`, run: rawList }, [{ name: `fed signal list of ${SMALL}`, run: ourList, max: 2 }], ROUNDS);
  } finally {
    for (const fed of made) rmSync(fed.root, { recursive: true, force: true });
  }
}
