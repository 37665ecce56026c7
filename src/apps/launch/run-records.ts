import { existsSync } from 'node:fs';
import { appendJsonLine } from '../../infra/fs/append-line.js';
import { unlinkQuietly, writeFileAtomic } from '../../infra/fs/atomic-write.js';
import type { Federation } from '../../engine/context.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { toJsonText } from '../../core/json-text.js';
import { readRunHistory } from '../../engine/runs/run-history.js';
import { readFileTail, readJsonFile } from '../../infra/fs/read-json-file.js';
import { workspacePaths } from '../../core/layout.js';
import { currentRunSchema, launchRunSchema, type CurrentRun, type LaunchRun } from '../../core/schema/launch-run.js';
import { lastJsonLines, parseJsonLines } from '../../core/schema/json-lines.js';

/**
 * A team's agent runs on disk: the run in progress (`.fed/launch/agent.json`, written when the agent
 * starts and updated when its session id is known, removed when the run is recorded) and the run journal
 * (`.fed/logs/runs.jsonl`, one line per finished run, appended durably). Each write checks its folder
 * first: the agent works in the workspace, and a link it left there is refused, never written through.
 */
export function writeCurrentRun(fed: Federation, team: RegistryEntry, run: CurrentRun): void {
  // Also while the agent runs: it may have replaced the folder with a link since the launch began.
  fed.folderForWrite(workspacePaths(team.location).launch, team);
  writeFileAtomic(workspacePaths(team.location).currentRun, toJsonText(run));
}

/** The run in progress as recorded, or undefined when there is none (a broken file counts as none: it proves no process). */
export function readCurrentRun(workspace: string): CurrentRun | undefined {
  const file = workspacePaths(workspace).currentRun;
  // Most teams have none: asked without the exception a failed open throws (the monitor asks every team).
  if (!existsSync(file)) return undefined;
  try {
    return readJsonFile(file, currentRunSchema);
  } catch {
    return undefined;
  }
}

export function clearCurrentRun(fed: Federation, team: RegistryEntry): void {
  fed.folderForWrite(workspacePaths(team.location).launch, team);
  unlinkQuietly(workspacePaths(team.location).currentRun);
}

export function appendRun(fed: Federation, team: RegistryEntry, run: LaunchRun): void {
  fed.folderForWrite(workspacePaths(team.location).logs, team);
  appendJsonLine(workspacePaths(team.location).runsJournal, run);
}

/** The last finished run of a team, or null when it never ran (torn or foreign lines are skipped). */
export function readLastRun(workspace: string): LaunchRun | null {
  return lastRunInJournal(runsJournalTail(workspacePaths(workspace).runsJournal, 256 * 1024));
}

/** The last finished run in a run journal's text (or its tail), or null when it holds none. */
export function lastRunInJournal(text: string): LaunchRun | null {
  return lastJsonLines(text, launchRunSchema, 1)[0] ?? null;
}

/** The team's latest finished runs, oldest first: those in the journal's last 256 KiB. */
export function readRecentRuns(workspace: string): LaunchRun[] {
  return parseRuns(runsJournalTail(workspacePaths(workspace).runsJournal, 256 * 1024));
}

/** What fed counted for a session over the team's runs that used it: what a resume of it adds is the rest. */
export function recordedSessionCostUsd(workspace: string, sessionId: string): number {
  return readRunHistory(workspace)
    .filter((run) => run.sessionId === sessionId)
    .reduce((total, run) => total + (run.costUsd ?? 0), 0);
}

function parseRuns(text: string): LaunchRun[] {
  return parseJsonLines(text, launchRunSchema);
}

/** The last `bytes` of the runs journal as text (empty when there is none yet). */
function runsJournalTail(file: string, bytes: number): string {
  // A team never launched has none: asked without the exception a failed open throws.
  if (!existsSync(file)) return '';
  return readFileTail(file, bytes, 'move it aside; fed starts a new journal')?.tail.toString('utf8') ?? '';
}

/**
 * The measures of a run whose agent fed did not watch to its end (none was started, or its launcher
 * died): unknown, never 0, so `fed runs` and the budget count them as "not reported".
 */
export const UNMEASURED_RUN = {
  exitCode: null,
  signal: null,
  turns: null,
  inputTokens: null,
  outputTokens: null,
  cacheReadTokens: null,
  cacheWriteTokens: null,
  costUsd: null,
  fixAttempts: 0,
  traceId: null,
} as const satisfies Partial<LaunchRun>;

/** What a finished run keeps of the run in progress (its process is gone). */
export function runFields(run: CurrentRun): Omit<CurrentRun, 'pid' | 'processStart' | 'launcherPid'> {
  const { pid: _pid, processStart: _start, launcherPid: _launcher, ...kept } = run;
  return kept;
}

/** The run in the journal, and no longer "in progress". */
export function recordRun(fed: Federation, team: RegistryEntry, run: LaunchRun): void {
  appendRun(fed, team, run);
  clearCurrentRun(fed, team);
}
