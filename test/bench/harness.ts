/**
 * Benchmark reporting. Every figure is printed beside a raw ceiling measured in the same run on the same
 * machine (these machines are shared and noisy, so absolute numbers mean little; ratios do). Each row
 * carries its median, spread and rounds and the machine's load when it was taken; `run.ts` writes the
 * rows to a JSON file so two runs can be compared (`npm run bench:compare`).
 */
import { loadavg } from 'node:os';

export interface BenchRow {
  /** The bench file the row comes from. */
  bench: string;
  /** What was timed: the user-facing path (a command, or the library call it makes). */
  name: string;
  /** The median over the rounds (the value itself for a single measurement). */
  value: number;
  min: number;
  max: number;
  rounds: number;
  unit: string;
  /** The raw ceiling this figure is compared with, measured in the same run. */
  ceiling?: { name: string; value: number };
  /** Human statement of the goal, e.g. "≥ 0.7× of the ceiling". */
  goal?: string;
  /** Whether the goal was met; undefined when there is no goal. */
  met?: boolean;
  /** The 1-minute load average when the row was reported. */
  load: number;
  /** The Node the figure was measured on: the bench's own unless the row says otherwise. */
  node: string;
}

/** What a bench reports: a single figure, or a median with its spread over `rounds`. */
export interface ReportedFigure {
  name: string;
  value: number;
  unit: string;
  ceiling?: { name: string; value: number };
  goal?: string;
  met?: boolean;
  spread?: { min: number; max: number };
  rounds?: number;
  /** The Node it was measured on, when not the bench's own (`process.version`). */
  node?: string;
}

const rows: BenchRow[] = [];
let currentBench = '';

/** Names the bench file whose rows follow (set by `run.ts`). */
export function startBench(name: string): void {
  currentBench = name;
}

export function report(figure: ReportedFigure): void {
  const row: BenchRow = {
    bench: currentBench,
    name: figure.name,
    value: figure.value,
    min: figure.spread?.min ?? figure.value,
    max: figure.spread?.max ?? figure.value,
    rounds: figure.rounds ?? 1,
    unit: figure.unit,
    ...(figure.ceiling && { ceiling: figure.ceiling }),
    ...(figure.goal !== undefined && { goal: figure.goal, met: figure.met ?? false }),
    load: loadavg()[0] ?? 0,
    node: figure.node ?? process.version,
  };
  rows.push(row);
  process.stdout.write(`${formatRow(row)}\n`);
}

/** One printed line: figure, spread and rounds, the ceiling and ratio, the goal's verdict, the Node and the load. */
export function formatRow(row: BenchRow): string {
  const unit = row.unit ? ` ${row.unit}` : '';
  // Ratios are judged against goals like 1.8×, so they keep two decimals, as do the cores a run keeps busy.
  const num = row.unit === '×' || row.unit === 'cores' ? (n: number) => n.toFixed(2) : fmt;
  const spread = row.rounds > 1 ? ` (spread ${num(row.min)}–${num(row.max)}, ${row.rounds} rounds)` : ' (1 round)';
  const ratio = row.ceiling
    ? `  vs ${row.ceiling.name} = ${fmt(row.ceiling.value)}${unit} (${(row.value / row.ceiling.value).toFixed(2)}×)`
    : '';
  const goal = row.goal ? `  goal ${row.goal}: ${row.met ? 'met' : 'NOT MET'}` : '';
  return `  ${row.name}: ${row.rounds > 1 ? 'median ' : ''}${num(row.value)}${unit}${spread}${ratio}${goal}  [node ${row.node}, load ${row.load.toFixed(2)}]`;
}

export function reportedRows(): readonly BenchRow[] {
  return rows;
}

export function fmt(n: number): string {
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(1) : n.toFixed(3);
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** The median and the spread (min–max) of `values`. */
export function summarize(values: readonly number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0] ?? Number.NaN, max: sorted.at(-1) ?? Number.NaN };
}

/** A measured path in `reportInterleavedRatios`. */
export interface MeasuredPath {
  name: string;
  /** One measurement of the path: a time (ms unless the unit says otherwise). */
  run: () => number | Promise<number>;
  /** Goal on time: the measured path takes at most `max` × the ceiling's time. */
  max?: number;
  /**
   * Goal on speed: the measured path runs at least `min` × the ceiling's speed. With it the row reports
   * ceiling time / measured time, so bigger is better.
   */
  min?: number;
  /** Report the speed ratio (as with `min`) without a goal: a bound, not a path held to one. */
  speed?: true;
}

/**
 * Each measured path's ratio to the ceiling, taken round by round: in every round the ceiling and the
 * measured runs alternate, so load that comes and goes on a shared machine hits both alike. Prints the
 * median ratio and its spread over the rounds, and reports each against its goal (`max` on time, `min` on
 * speed; none without one). A run returns what it measured (e.g. ms); it may be async, for work that is.
 */
export async function reportInterleavedRatios(
  ceiling: { name: string; run: () => number | Promise<number> },
  measured: readonly MeasuredPath[],
  rounds: number,
  unit = 'ms',
): Promise<void> {
  const ratios = measured.map(() => [] as number[]);
  const ceilings: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const [i, m] of measured.entries()) {
      const before = await ceiling.run();
      const value = await m.run();
      const after = await ceiling.run();
      ceilings.push(before, after);
      const base = (before + after) / 2;
      ratios[i]!.push(isSpeed(m) ? base / value : value / base);
    }
  }
  const base = summarize(ceilings);
  report({
    name: `${ceiling.name} (ceiling)`,
    value: base.median,
    unit,
    spread: base,
    rounds,
  });
  measured.forEach((m, i) => {
    const { max, min } = m;
    reportRoundRatios(
      isSpeed(m) ? `${m.name} / ${ceiling.name}, speed` : `${m.name} / ${ceiling.name}, time`,
      ratios[i]!,
      max !== undefined
        ? { text: `≤ ${max}×`, met: (median) => median <= max }
        : min !== undefined
          ? { text: `≥ ${min}×`, met: (median) => median >= min }
          : undefined,
    );
  });
}

const isSpeed = (path: MeasuredPath) => path.min !== undefined || path.speed === true;

/** Ratios taken round by round: their median, judged against the goal, and their spread. */
export function reportRoundRatios(
  name: string,
  ratios: readonly number[],
  goal?: { text: string; met: (median: number) => boolean },
  node?: string,
): void {
  const s = summarize(ratios);
  report({
    name,
    value: s.median,
    unit: '×',
    spread: s,
    rounds: ratios.length,
    ...(goal && { goal: goal.text, met: goal.met(s.median) }),
    ...(node !== undefined && { node }),
  });
}
