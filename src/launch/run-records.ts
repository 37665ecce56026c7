import { appendFileSync, closeSync, fsyncSync, openSync } from 'node:fs';
import { unlinkQuietly, writeFileAtomic } from '../fs/atomic-write.js';
import { ensureDirectory } from '../fs/ensure-directory.js';
import { toJsonText } from '../fs/json-text.js';
import { readFileTail, readJsonFile } from '../fs/read-json-file.js';
import { workspacePaths } from '../layout.js';
import { currentRunSchema, launchRunSchema, type CurrentRun, type LaunchRun } from '../schema/launch-run.js';

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
  const paths = workspacePaths(workspace);
  ensureDirectory(paths.logs);
  const tail = runsJournalTail(paths.runsJournal, 1);
  // A line torn by a crash mid-append gets its newline first, so it cannot swallow this one.
  const prefix = tail.length > 0 && tail !== '\n' ? '\n' : '';
  const fd = openSync(paths.runsJournal, 'a');
  try {
    appendFileSync(fd, `${prefix}${JSON.stringify(run)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The last finished run of a team, or null when it never ran (torn or foreign lines are skipped). */
export function readLastRun(workspace: string): LaunchRun | null {
  const lines = runsJournalTail(workspacePaths(workspace).runsJournal, 256 * 1024).split('\n').reverse();
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const parsed = launchRunSchema.safeParse(JSON.parse(line));
      if (parsed.success) return parsed.data;
    } catch {
      // torn line
    }
  }
  return null;
}

/** The last `bytes` of the runs journal as text (empty when there is none yet). */
function runsJournalTail(file: string, bytes: number): string {
  return readFileTail(file, bytes, 'move it aside; fed starts a new journal')?.tail.toString('utf8') ?? '';
}
