/**
 * `fed monitor --json` (the built command, a process per cycle, as a user or a cron job runs it) over 100
 * and 1 000 teams, beside a raw reader doing the same essential reads in a process of its own
 * (test/fixtures/bench-monitor-ceiling.mjs: the registry, each team's inbox and outbox listed, its
 * lifecycle read and parsed, its deliverable stat-ed, its agent's log looked at — the spec's three health
 * checks), interleaved round by round. Goal: ≤ 1.4× the raw
 * reader at 1 000 teams, and flat in team count (the ratio at 1 000 not above the one at 100). Beside it,
 * with no goal, the ratio to the design's ceiling (test/fixtures/bench-monitor-design-ceiling.mjs: the
 * same reads as fed's design must make them — an outbox signal acknowledged by its recipient's copy, a
 * lifecycle read as a file an agent may have planted, the team's launch records looked at), measured in the same rounds. Each team
 * has its mission applied (a lifecycle) and `SIGNALS` signals in its inbox, every other one acknowledged,
 * with their outbox copies in meta's outbox. `FED_BENCH_ROUNDS` sets the rounds (default 7).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { initFederation, onboardTeam, openFederation, runActors } from 'fed';
import { ackFileName, META, signalFileName, toJsonText, workspacePaths } from 'fed/testing';
import type { SignalMessage } from 'fed';
import { FED_BIN } from '../helpers/fed-cli.js';
import { FIXTURES_DIR } from '../helpers/fixture-process.js';
import { report, reportRoundRatios, summarize } from './harness.js';

const SIZES = [100, 1_000];
const SIGNALS = 20;
const ROUNDS = Number(process.env.FED_BENCH_ROUNDS ?? 7);
const ENV = { ...process.env, FED_TELEMETRY_ENABLED: 'false' };
const ACK = toJsonText({ acknowledged: true, acknowledged_at: '2026-01-01T00:00:00.000Z' });

/** One of meta's signals to a team, with a subject of its own so every outbox copy keeps the inbox copy's name. */
function signal(team: string, t: number, i: number): SignalMessage {
  return {
    id: `00000000-0000-4000-8${String(t).padStart(3, '0')}-${String(i).padStart(12, '0')}`,
    timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1_000).toISOString(),
    from: META,
    to: team,
    type: i === 0 ? 'directive' : 'report',
    subject: i === 0 ? `Mission of ${team}` : `Status ${i} of ${team}`,
    body: 'x'.repeat(200),
    protocol: 'file-signal-v1',
  };
}

/**
 * `teams` teams, each with its mission applied and SIGNALS signals from meta (written directly, with their
 * outbox copies: sending would dominate the setup): the first half applied and acknowledged by the team
 * actors, the second half arriving after, every other one of those acknowledged.
 */
async function federation(teams: number): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-monitor-'));
  initFederation(root, {}, ENV);
  const fed = openFederation(root, { env: ENV });
  const meta = workspacePaths(root);
  mkdirSync(meta.outbox, { recursive: true });
  const inboxes: Array<{ team: string; inbox: string }> = [];
  for (let t = 0; t < teams; t++) {
    const entry = await onboardTeam(fed, { domain: `team-${String(t).padStart(4, '0')}` }, { durable: false });
    const { inbox } = workspacePaths(entry.location);
    mkdirSync(inbox, { recursive: true });
    inboxes.push({ team: entry.domainId, inbox });
  }
  const write = (from: number, to: number, acknowledged: (i: number) => boolean) =>
    inboxes.forEach(({ team, inbox }, t) => {
      for (let i = from; i < to; i++) {
        const message = signal(team, t, i);
        const name = signalFileName(message);
        writeFileSync(join(inbox, name), toJsonText(message));
        writeFileSync(join(meta.outbox, name), toJsonText(message));
        if (acknowledged(i)) writeFileSync(join(inbox, ackFileName(name)), ACK);
      }
    });
  write(0, SIGNALS / 2, () => false);
  await runActors(fed, { once: true, durable: false });
  write(SIGNALS / 2, SIGNALS, (i) => i % 2 === 0);
  return root;
}

function timed(args: readonly string[], cwd: string): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd, env: ENV, stdio: ['ignore', 'ignore', 'pipe'] });
  const elapsed = performance.now() - started;
  if (run.status !== 0) throw new Error(`${args.join(' ')} exited ${run.status}: ${run.stderr.toString()}`);
  return elapsed;
}

export default async function monitorBench(): Promise<void> {
  const roots: string[] = [];
  try {
    for (const size of SIZES) roots.push(await federation(size));
    const monitor = (root: string) => () => timed([FED_BIN, 'monitor', '--json'], root);
    const raw = (root: string) => () => timed([join(FIXTURES_DIR, 'bench-monitor-ceiling.mjs'), root], root);
    const design = (root: string) => () => timed([join(FIXTURES_DIR, 'bench-monitor-design-ceiling.mjs'), root], root);
    // The first run of each leaves fed's code cache and warms the page cache: not measured.
    for (const root of roots) {
      monitor(root)();
      raw(root)();
      design(root)();
    }
    // Round by round, at each size: raw reader, design's reader, fed monitor, design's reader, raw reader
    // (each ceiling around the measured run, as reportInterleavedRatios does), so the ratio at 1 000 teams
    // can be set against the one at 100 of the same round.
    const ratios = SIZES.map(() => [] as number[]);
    const designRatios = SIZES.map(() => [] as number[]);
    const ceilings = SIZES.map(() => [] as number[]);
    const designCeilings = SIZES.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round++) {
      roots.forEach((root, i) => {
        const before = raw(root)();
        const designBefore = design(root)();
        const measured = monitor(root)();
        const designAfter = design(root)();
        const after = raw(root)();
        ceilings[i]!.push(before, after);
        designCeilings[i]!.push(designBefore, designAfter);
        ratios[i]!.push(measured / ((before + after) / 2));
        designRatios[i]!.push(measured / ((designBefore + designAfter) / 2));
      });
    }
    SIZES.forEach((size, i) => {
      for (const [name, values] of [
        [`raw reader, ${size} teams (ceiling)`, ceilings[i]!],
        [`design's reader, ${size} teams (the design's ceiling)`, designCeilings[i]!],
      ] as const) {
        const ceiling = summarize(values);
        report({ name, value: ceiling.median, unit: 'ms', spread: ceiling, rounds: ROUNDS });
      }
      reportRoundRatios(`fed monitor --json / raw reader, ${size} teams, time`, ratios[i]!, {
        text: '≤ 1.4×',
        met: (median) => median <= 1.4,
      });
      reportRoundRatios(`fed monitor --json / design's reader, ${size} teams, time`, designRatios[i]!);
    });
    reportRoundRatios(
      `fed monitor --json: ratio at ${SIZES[1]} teams / ratio at ${SIZES[0]}, same round`,
      ratios[1]!.map((ratio, round) => ratio / ratios[0]![round]!),
      { text: '≤ 1.1× (flat)', met: (median) => median <= 1.1 },
    );
  } finally {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  }
}
