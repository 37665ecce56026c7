import { workspacePaths } from '../../core/layout.js';
import { launchRunSchema, type LaunchRun } from '../../core/schema/launch-run.js';
import { parseJsonLines } from '../../core/schema/json-lines.js';
import { readTextFile } from '../../infra/fs/read-json-file.js';

/**
 * Every finished run of a team, oldest first, from its run journal (`<workspace>/.fed/logs/runs.jsonl`,
 * which the launch appends: src/apps/launch/run-records.ts). Here, below the launch, for the removal too:
 * it keeps a removed team's runs (src/engine/registry/removed-runs.ts).
 */
export function readRunHistory(workspace: string): LaunchRun[] {
  return parseJsonLines(
    readTextFile(workspacePaths(workspace).runsJournal, 'move it aside; fed starts a new run journal') ?? '',
    launchRunSchema,
  );
}
