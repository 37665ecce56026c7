import { writeFileAtomic } from '../../infra/fs/atomic-write.js';
import type { Federation } from '../context.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { toJsonText } from '../../core/json-text.js';
import { readJsonFile } from '../../infra/fs/read-json-file.js';
import { workspacePaths } from '../../core/layout.js';
import { codebaseBaselineSchema, type CodebaseBaseline } from '../../core/schema/launch-context.js';

/**
 * The codebase as a launch found it (src/engine/deliverable/codebase-guard.ts), kept in the team's launch
 * folder: a read-only team's completion is judged against it.
 */
export function writeBaseline(fed: Federation, team: RegistryEntry, baseline: CodebaseBaseline): void {
  const paths = workspacePaths(team.location);
  fed.folderForWrite(paths.launch, team);
  writeFileAtomic(paths.launchBaseline, toJsonText(baseline));
}

/** The baseline of the running launch, or undefined when there is none (or it cannot be read). */
export function readBaseline(workspace: string): CodebaseBaseline | undefined {
  try {
    return readJsonFile(workspacePaths(workspace).launchBaseline, codebaseBaselineSchema);
  } catch {
    // A broken baseline cannot prove a modification; the check after the agent exits still runs.
    return undefined;
  }
}
