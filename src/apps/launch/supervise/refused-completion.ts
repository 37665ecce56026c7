import { workspacePaths } from '../../../core/layout.js';
import { toJsonText } from '../../../core/json-text.js';
import { completionRefusalSchema, type CompletionRefusal } from '../../../core/schema/completion-refusal.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import type { Federation } from '../../../engine/context.js';
import { unlinkQuietly, writeFileAtomic } from '../../../infra/fs/atomic-write.js';
import { readJsonFile } from '../../../infra/fs/read-json-file.js';

/**
 * The record of a completion fed's checks refused while a launch ran (`.fed/launch/refused-completion.json`):
 * written by the refusing `fed event`, read by the launcher once the agent has exited — the refusal
 * outlives the `fed event` process that made it, and the agent's own report of it.
 */
export function recordRefusedCompletion(fed: Federation, team: RegistryEntry, refusal: CompletionRefusal): void {
  fed.folderForWrite(workspacePaths(team.location).launch, team);
  writeFileAtomic(workspacePaths(team.location).refusedCompletion, toJsonText(refusal));
}

/** The refused completion recorded for the running launch, or undefined (none, or a broken file: it proves no refusal). */
export function readRefusedCompletion(workspace: string): CompletionRefusal | undefined {
  try {
    return readJsonFile(workspacePaths(workspace).refusedCompletion, completionRefusalSchema);
  } catch {
    return undefined;
  }
}

/** A launch starts with no refusal on record: one left by an earlier launch is not this run's. */
export function clearRefusedCompletion(fed: Federation, team: RegistryEntry): void {
  fed.folderForWrite(workspacePaths(team.location).launch, team);
  unlinkQuietly(workspacePaths(team.location).refusedCompletion);
}
