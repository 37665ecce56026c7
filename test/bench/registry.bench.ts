/**
 * Registry compare-and-swap under contention: 4 writer processes each adding teams through
 * `updateRegistry` (the library call behind `fed team onboard`, `fed team pause` and every lastActive
 * refresh), beside two ceilings run in the same rounds, in rotating order:
 * - the feature's: the commit lock around a bare read, version bump and durable atomic replace;
 * - the design's: that plus what fed's guarantees add (the read validated, the lock and the file checked
 *   again right before the rename).
 * Goal: ≥ 0.7× the feature's ceiling, with no lost update.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initFederation } from 'fed';
import { readRegistry } from 'fed/testing';
import { startFixture } from '../helpers/fixture-process.js';
import { report, reportRoundRatios, summarize } from './harness.js';

const WRITERS = 4;
const DURATION_MS = 3_000;
const ROUNDS = Number(process.env.FED_BENCH_REGISTRY_ROUNDS ?? 5);
const GOAL = 0.7;

type Mode = 'library' | 'raw' | 'checked';

interface Run {
  perSecond: number;
  writes: number;
  conflicts: number;
  /** Writes acknowledged but missing from the registry, plus any gap between lockVersion and writes. */
  lost: number;
}

async function run(mode: Mode): Promise<Run> {
  const root = mkdtempSync(join(tmpdir(), `fed-bench-registry-${mode}-`));
  try {
    initFederation(root, {}, {});
    // Start together after every process has booted, so startup time is not measured.
    const startAt = Date.now() + 2_500;
    const writers = Array.from({ length: WRITERS }, (_, i) =>
      startFixture('registry-bench-writer.mjs', [root, mode, String(startAt), String(DURATION_MS), `w${i}`]),
    );
    const results = await Promise.all(writers.map((w) => w.done));
    let writes = 0;
    let conflicts = 0;
    for (const result of results) {
      if (result.code !== 0) throw new Error(`bench writer failed: ${result.stderr}`);
      const parsed = JSON.parse(result.stdout) as { writes: number; conflicts: number };
      writes += parsed.writes;
      conflicts += parsed.conflicts;
    }
    const registry = readRegistry(root);
    const lost = writes - registry.teams.length + Math.abs(registry.lockVersion - writes);
    return { perSecond: writes / (DURATION_MS / 1000), writes, conflicts, lost };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export default async function registryBench(): Promise<void> {
  const order: Mode[] = ['raw', 'checked', 'library'];
  const vsRaw: number[] = [];
  const vsChecked: number[] = [];
  const rates: Record<Mode, number[]> = { raw: [], checked: [], library: [] };
  let lost = 0;
  let writes = 0;
  let conflicts = 0;
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate who goes first, so a drift in the machine's load does not always favour the same path.
    const runs = {} as Record<Mode, Run>;
    for (const mode of [...order.slice(round % 3), ...order.slice(0, round % 3)]) runs[mode] = await run(mode);
    for (const mode of order) {
      rates[mode].push(runs[mode].perSecond);
      lost += runs[mode].lost;
    }
    vsRaw.push(runs.library.perSecond / runs.raw.perSecond);
    vsChecked.push(runs.library.perSecond / runs.checked.perSecond);
    writes += runs.library.writes;
    conflicts += runs.library.conflicts;
  }
  for (const [mode, name] of [
    ['raw', 'feature ceiling: lock + read + bump + durable replace'],
    ['checked', 'design ceiling: + schema validation + lock/file re-check before rename'],
    ['library', 'updateRegistry'],
  ] as const) {
    const s = summarize(rates[mode]);
    report({ name: `${name}, ${WRITERS} processes`, value: s.median, unit: 'writes/s', spread: s, rounds: ROUNDS });
  }
  reportRoundRatios(`updateRegistry / feature ceiling, ${WRITERS} processes, speed`, vsRaw, {
    text: `≥ ${GOAL}×`,
    met: (median) => median >= GOAL,
  });
  reportRoundRatios(`updateRegistry / design ceiling, ${WRITERS} processes, speed`, vsChecked);
  report({
    name: 'lost updates, every path (acknowledged − teams in registry; |lockVersion − writes|)',
    value: lost,
    unit: '',
    goal: '0',
    met: lost === 0,
    rounds: ROUNDS,
  });
  report({ name: 'updateRegistry conflicts per write', value: conflicts / writes, unit: '', rounds: ROUNDS });
}
