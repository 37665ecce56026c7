import type { LaunchRun } from '../../core/schema/launch-run.js';

/**
 * What some runs add up to. A sum counts the runs that reported the value and is null when none did —
 * an unknown is never a zero; `runsWithoutCost` says how many runs the cost leaves out (codex and gemini
 * report no cost, a run killed before its result event none either).
 */
export interface RunTotals {
  runs: number;
  turns: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  costUsd: number | null;
  runsWithoutCost: number;
  /** Wall time of all the runs, start to end. */
  durationMs: number;
}

const SUMMED = ['turns', 'inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'costUsd'] as const;

/**
 * `runs` added up — onto `before` when given: the totals of the runs that came before them, so a journal's
 * runs added up in parts come to exactly what they come to in one go (costs are added in the same order).
 */
export function totalRuns(runs: readonly LaunchRun[], before?: RunTotals): RunTotals {
  const totals: RunTotals = before
    ? { ...before, runs: before.runs + runs.length }
    : {
        runs: runs.length,
        turns: null,
        inputTokens: null,
        outputTokens: null,
        cacheReadTokens: null,
        cacheWriteTokens: null,
        costUsd: null,
        runsWithoutCost: 0,
        durationMs: 0,
      };
  for (const run of runs) {
    for (const field of SUMMED) {
      const value = run[field];
      if (value !== null) totals[field] = (totals[field] ?? 0) + value;
    }
    if (run.costUsd === null) totals.runsWithoutCost++;
    totals.durationMs += runDurationMs(run);
  }
  return totals;
}

/** Start to end; never negative (a clock set back between the two). */
export function runDurationMs(run: LaunchRun): number {
  return Math.max(0, Date.parse(run.endedAt) - Date.parse(run.startedAt));
}
