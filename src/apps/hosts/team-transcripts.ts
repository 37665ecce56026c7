import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { workspacePaths } from '../../core/layout.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { listDirectory } from '../../infra/fs/list-directory.js';
import { readIfThere } from '../../infra/fs/read-if-there.js';
import { sha256 } from '../../infra/crypto/sha256.js';
import { readLastRun } from '../launch/run-records.js';

/**
 * A launch's transcript and prompt (`.fed/logs/runs/<runId>.jsonl|.log`, `<runId>.prompt.md`) kept in the
 * backend's transcript store (src/ports/transcript-store.ts) by `fed serve` as the launch runs and when it
 * ends, and read back from it — one file, when asked — where a team moved here looks back at a run another
 * host ran. Nothing on a backend without one (files: one machine).
 */

/** The folder of the team's transcripts and prompts, by the name each file is kept under. */
export function transcriptFolder(team: RegistryEntry): string {
  return workspacePaths(team.location).runTranscripts;
}

/** Copy the team's transcript file `name` to the store unless the store has it as it is; whether it was copied. */
export async function keepTranscript(fed: Federation, team: RegistryEntry, name: string): Promise<boolean> {
  const store = fed.backend.transcripts;
  if (!store || !isTranscriptName(name)) return false;
  const content = readIfThere(join(transcriptFolder(team), name));
  if (content === undefined) return false;
  if ((await store.digest(team.domainId, name)) === sha256(content).toString('hex')) return false;
  await store.put(team.domainId, name, content);
  return true;
}

/** The files of the team's last finished run — its transcript and prompt — by name (what a launch's end keeps). */
export function lastRunTranscripts(team: RegistryEntry): string[] {
  const run = readLastRun(team.location);
  return run ? [run.transcriptPath, run.promptPath].flatMap((path) => (path ? [basename(path)] : [])) : [];
}

/** Copy every transcript and prompt of the team's workspace the store lacks as it is (`fed migrate to-jetstream`). */
export async function keepTranscripts(fed: Federation, team: RegistryEntry): Promise<string[]> {
  if (!fed.backend.transcripts) return [];
  const kept: string[] = [];
  for (const name of listDirectory(transcriptFolder(team)))
    if (isTranscriptName(name) && (await keepTranscript(fed, team, name))) kept.push(name);
  return kept;
}

/** Write each transcript the store keeps and the workspace lacks into it (`fed migrate to-files`); their names. */
export async function restoreTranscripts(fed: Federation, team: RegistryEntry): Promise<string[]> {
  const store = fed.backend.transcripts;
  if (!store) return [];
  const written: string[] = [];
  for (const name of await store.names(team.domainId))
    if (!existsSync(join(transcriptFolder(team), name)) && (await fetchTranscript(fed, team, name))) written.push(name);
  return written;
}

/**
 * The path in this workspace of a run's transcript or prompt file as its run recorded it (`recorded`, a
 * path on whichever host ran it): the workspace's own file when it has one, else the store's copy,
 * written into the workspace first (atomically: a reader never finds half of it) so it is fetched once.
 * Undefined when neither has it.
 */
export async function localTranscript(
  fed: Federation,
  team: RegistryEntry,
  recorded: string,
): Promise<string | undefined> {
  const name = basename(recorded);
  const path = join(transcriptFolder(team), name);
  if (existsSync(path)) return path;
  return (await fetchTranscript(fed, team, name)) ? path : undefined;
}

/** Write the store's copy of the team's file `name` into its workspace; whether the store had one. */
async function fetchTranscript(fed: Federation, team: RegistryEntry, name: string): Promise<boolean> {
  // A name only another writer of the store could have made (a folder in it, a temp file's) is no run's file.
  if (basename(name) !== name || !isTranscriptName(name)) return false;
  const content = await fed.backend.transcripts?.get(team.domainId, name);
  if (content === undefined) return false;
  fed.folderForWrite(transcriptFolder(team), team);
  writeFileAtomic(join(transcriptFolder(team), name), content);
  return true;
}

/** A run's file, not the temp file of one being written (`.<name>.<pid>.<hex>.tmp`, atomic-write.ts). */
export function isTranscriptName(name: string): boolean {
  return !name.startsWith('.');
}
