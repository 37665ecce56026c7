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
  const ratio = row.ceiling ? `  (${((row.value / row.ceiling.value) * 100).toFixed(0)} % of ${row.ceiling.name} = ${fmt(row.ceiling.value)} ${row.unit})` : '';
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
