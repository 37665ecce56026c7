/**
 * Benchmark reporting. Every figure is printed beside a raw ceiling measured in the same run on the same
 * machine (these machines are shared and noisy, so absolute numbers mean little; ratios do).
 */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  /** The raw ceiling this figure is compared with, measured in the same run. */
  ceiling?: { name: string; value: number };
  /** Human statement of the goal, e.g. "≥ 50 % of ceiling". */
  goal?: string;
  /** Whether the goal was met; undefined when there is no goal. */
  met?: boolean;
}

const rows: BenchRow[] = [];

export function report(row: BenchRow): void {
  rows.push(row);
  const ratio = row.ceiling
    ? `  (${((row.value / row.ceiling.value) * 100).toFixed(0)} % of ${row.ceiling.name} = ${fmt(row.ceiling.value)} ${row.unit})`
    : '';
  const goal = row.goal ? `  goal ${row.goal}: ${row.met ? 'met' : 'NOT MET'}` : '';
  process.stdout.write(`  ${row.name}: ${fmt(row.value)} ${row.unit}${ratio}${goal}\n`);
}

export function reportedRows(): readonly BenchRow[] {
  return rows;
}

export function fmt(n: number): string {
  return n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(1) : n.toFixed(3);
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

/**
 * Each measured command's ratio to the ceiling, taken round by round: in every round the ceiling and the
 * measured runs alternate, so load that comes and goes on a shared machine hits both alike. Prints the
 * median ratio and its spread over the rounds, and reports each against its goal (`max` ratio; none
 * without one). A run returns what it measured (e.g. ms); it may be async, for work that is.
 */
export async function reportInterleavedRatios(
  ceiling: { name: string; run: () => number | Promise<number> },
  measured: readonly { name: string; run: () => number | Promise<number>; max?: number }[],
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
      ratios[i]!.push(value / ((before + after) / 2));
    }
  }
  const base = summarize(ceilings);
  process.stdout.write(
    `  ${ceiling.name}: median ${fmt(base.median)} ${unit} (${fmt(base.min)}–${fmt(base.max)}), ${rounds} rounds interleaved\n`,
  );
  measured.forEach((m, i) => {
    const max = m.max;
    reportRoundRatios(
      `${m.name} / ${ceiling.name}`,
      ratios[i]!,
      max === undefined ? undefined : { text: `≤ ${max}×`, met: (median) => median <= max },
    );
  });
}

/** Ratios taken round by round: their median, judged against the goal, and their spread. */
export function reportRoundRatios(
  name: string,
  ratios: readonly number[],
  goal?: { text: string; met: (median: number) => boolean },
): void {
  const s = summarize(ratios);
  const row: BenchRow = {
    name,
    value: s.median,
    unit: `× (spread ${s.min.toFixed(2)}–${s.max.toFixed(2)})`,
    ...(goal && { goal: goal.text, met: goal.met(s.median) }),
  };
  rows.push(row);
  const verdict = row.goal ? `  goal ${row.goal}: ${row.met ? 'met' : 'NOT MET'}` : '';
  process.stdout.write(`  ${row.name}: median ${s.median.toFixed(2)}${row.unit}${verdict}\n`);
}
