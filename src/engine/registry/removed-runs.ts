import { federationPaths } from '../../core/layout.js';
import { parseJsonLines } from '../../core/schema/json-lines.js';
import { removedRunSchema, type RemovedRun } from '../../core/schema/removed-runs.js';
import { appendJsonLine } from '../../infra/fs/append-line.js';
import { readTextFile } from '../../infra/fs/read-json-file.js';
import { readRunHistory } from '../runs/run-history.js';

const LEDGER_FIX = 'move it aside (what removed teams spent is then no longer counted)';

/**
 * Keep the runs of team `team` (its workspace at `location`) in the federation's ledger of removed teams'
 * runs (src/core/schema/removed-runs.ts), before `fed team remove` deletes the workspace with its run
 * journal: what they cost stays counted. Only the runs not kept yet are appended (a removal re-run after an
 * interruption); the last line durably. Returns how many were appended.
 */
export function keepRemovedRuns(root: string, team: string, location: string, now: Date = new Date()): number {
  const kept = new Set(readRemovedRuns(root).flatMap((r) => (r.team === team ? [r.run.runId] : [])));
  const runs = readRunHistory(location).filter((run) => !kept.has(run.runId));
  const file = federationPaths(root).removedRuns;
  const removedAt = now.toISOString();
  runs.forEach((run, i) =>
    appendJsonLine(file, { team, removedAt, run } satisfies RemovedRun, { durable: i === runs.length - 1 }),
  );
  return runs.length;
}

/** The runs of removed teams, oldest kept first, each team's run once (torn or foreign lines are skipped). */
export function readRemovedRuns(root: string): RemovedRun[] {
  const text = readTextFile(federationPaths(root).removedRuns, LEDGER_FIX) ?? '';
  const seen = new Set<string>();
  return parseJsonLines(text, removedRunSchema).filter((r) => {
    const key = `${r.team}\0${r.run.runId}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
