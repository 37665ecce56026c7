import { appendJsonLine } from '../../infra/fs/append-line.js';
import { unlinkQuietly, writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { ensureDirectory } from '../../infra/fs/ensure-directory.js';
import { toJsonText } from '../../core/json-text.js';
import { readFileTail, readJsonFile, readTextFile } from '../../infra/fs/read-json-file.js';
import { workspacePaths } from '../../core/layout.js';
import { currentRunSchema, launchRunSchema, type CurrentRun, type LaunchRun } from '../../core/schema/launch-run.js';
import { parseJsonLines } from '../../core/schema/json-lines.js';

/**
 * A team's agent runs on disk: the run in progress (`.fed/launch/agent.json`, written when the agent
 * starts and updated when its session id is known, removed when the run is recorded) and the run journal
 * (`.fed/logs/runs.jsonl`, one line per finished run, appended durably).
 */
export function writeCurrentRun(workspace: string, run: CurrentRun): void {
  ensureDirectory(workspacePaths(workspace).launch);
  writeFileAtomic(workspacePaths(workspace).currentRun, toJsonText(run));
}

/** The run in progress as recorded, or undefined when there is none (a broken file counts as none: it proves no process). */
export function readCurrentRun(workspace: string): CurrentRun | undefined {
  try {
    return readJsonFile(workspacePaths(workspace).currentRun, currentRunSchema);
  } catch {
    return undefined;
  }
}

export function clearCurrentRun(workspace: string): void {
  unlinkQuietly(workspacePaths(workspace).currentRun);
}

export function appendRun(workspace: string, run: LaunchRun): void {
  appendJsonLine(workspacePaths(workspace).runsJournal, run);
}

/** The last finished run of a team, or null when it never ran (torn or foreign lines are skipped). */
export function readLastRun(workspace: string): LaunchRun | null {
  return parseRuns(runsJournalTail(workspacePaths(workspace).runsJournal, 256 * 1024)).at(-1) ?? null;
}

/** Every finished run of a team, oldest first. */
export function readRunHistory(workspace: string): LaunchRun[] {
  return parseRuns(
    readTextFile(workspacePaths(workspace).runsJournal, 'move it aside; fed starts a new run journal') ?? '',
  );
}

function parseRuns(text: string): LaunchRun[] {
  return parseJsonLines(text, launchRunSchema);
}

/** The last `bytes` of the runs journal as text (empty when there is none yet). */
function runsJournalTail(file: string, bytes: number): string {
  return readFileTail(file, bytes, 'move it aside; fed starts a new journal')?.tail.toString('utf8') ?? '';
}

/** What a finished run keeps of the run in progress (its process is gone). */
export function runFields(run: CurrentRun): Omit<CurrentRun, 'pid' | 'processStart' | 'launcherPid'> {
  const { pid: _pid, processStart: _start, launcherPid: _launcher, ...kept } = run;
  return kept;
}

/** The run in the journal, and no longer "in progress". */
export function recordRun(workspace: string, run: LaunchRun): void {
  appendRun(workspace, run);
  clearCurrentRun(workspace);
}
