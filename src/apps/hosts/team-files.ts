import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { workspacePaths } from '../../core/layout.js';
import { toJsonText } from '../../core/json-text.js';
import { keptTeamFilesSchema, type KeptTeamFiles } from '../../core/schema/kept-team-files.js';
import type { LaunchRun } from '../../core/schema/launch-run.js';
import { ANY_HOST, type RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { readIfThere } from '../../infra/fs/read-if-there.js';
import { readJsonFile } from '../../infra/fs/read-json-file.js';
import { sha256 } from '../../infra/crypto/sha256.js';
import { lastRunInJournal, readLastRun } from '../launch/run-records.js';

/**
 * The files of a team's workspace that are the team's own — what it produced and learned, and the record
 * of its runs — by the name each is kept under (src/ports/team-file-store.ts). Transcripts are not among
 * them: large, and only ever read to look back, they are kept apart, each fetched when asked for
 * (team-transcripts.ts).
 */
export function teamFiles(fed: Federation, team: RegistryEntry): Record<string, string> {
  const paths = workspacePaths(team.location);
  return {
    deliverable: join(team.location, fed.config.deliverable),
    'learning-log': paths.learningLog,
    'runs-journal': paths.runsJournal,
    'runs-totals': paths.runsTotals,
  };
}

/**
 * Copy the team's own files that changed since this workspace last kept or took them to the backend's
 * store, as `fed serve` does while a launch runs and after it ends, so a move to another host finds them
 * there. Nothing on a backend without one (files: one machine). Returns the names kept.
 */
export async function keepTeamFiles(fed: Federation, team: RegistryEntry): Promise<string[]> {
  const kept: string[] = [];
  for (const name of Object.keys(teamFiles(fed, team))) if (await keepTeamFile(fed, team, name)) kept.push(name);
  return kept;
}

/** Copy the team's file `name` to the store unless the store has it as it is; whether it was copied. */
export async function keepTeamFile(fed: Federation, team: RegistryEntry, name: string): Promise<boolean> {
  const store = fed.backend.teamFiles;
  const path = teamFiles(fed, team)[name];
  if (!store || path === undefined) return false;
  const content = readIfThere(path);
  if (content === undefined) return false;
  const digest = sha256(content).toString('hex');
  const record = readKeptFiles(team);
  if (record.files[name]?.sha256 === digest) return false;
  const revision = await store.put(team.domainId, name, content);
  // Read again: the record is the workspace's, and only this process writes it, one file at a time.
  const now = readKeptFiles(team);
  now.files[name] = { revision, sha256: digest };
  writeKeptFiles(fed, team, now);
  return true;
}

/**
 * Write into the team's workspace each of its files the store has a later copy of than the workspace
 * holds: all of them in a workspace new on this host, the ones its launches elsewhere changed in one the
 * team comes back to. A file the workspace changed after its last copy, with no later copy in the store,
 * is left as it is (its launch here was cut short; the next keeps it). `missingOnly`: a file the workspace
 * has is left as it is (`fed migrate to-files` into a workspace that may be the team's own, newer than the
 * copy). Returns the names written.
 */
export async function restoreTeamFiles(
  fed: Federation,
  team: RegistryEntry,
  { missingOnly = false }: { missingOnly?: boolean } = {},
): Promise<string[]> {
  const store = fed.backend.teamFiles;
  if (!store) return [];
  const stored = await store.read(team.domainId);
  const record = readKeptFiles(team);
  const written: string[] = [];
  let changed = false;
  for (const [name, path] of Object.entries(teamFiles(fed, team))) {
    const copy = stored.get(name);
    if (copy === undefined || copy.revision <= (record.files[name]?.revision ?? 0)) continue;
    if (missingOnly && existsSync(path)) continue;
    const digest = sha256(copy.content).toString('hex');
    record.files[name] = { revision: copy.revision, sha256: digest };
    changed = true;
    // This workspace's own copy, put just before its host stopped short of recording it: nothing to write.
    if (digestOf(path) === digest) continue;
    fed.folderForWrite(dirname(path), team);
    writeFileAtomic(path, copy.content);
    written.push(name);
  }
  if (changed) writeKeptFiles(fed, team, record);
  return written;
}

/**
 * The team's last finished run, for judging its work: an unplaced team's from the store's copy of its run
 * journal when that is later than its workspace's here — the team ran on another host since, or its
 * workspace is there — so any host's server judges what the team's last launch left.
 */
export async function lastRunOf(fed: Federation, team: RegistryEntry): Promise<LaunchRun | null> {
  const store = fed.backend.teamFiles;
  if (!store || team.host !== ANY_HOST) return readLastRun(team.location);
  const copy = await store.get(team.domainId, 'runs-journal');
  if (copy && copy.revision > (readKeptFiles(team).files['runs-journal']?.revision ?? 0))
    return lastRunInJournal(Buffer.from(copy.content).toString('utf8'));
  return readLastRun(team.location);
}

function digestOf(path: string): string | undefined {
  const content = readIfThere(path);
  return content && sha256(content).toString('hex');
}

function readKeptFiles(team: RegistryEntry): KeptTeamFiles {
  return readJsonFile(workspacePaths(team.location).keptFiles, keptTeamFilesSchema) ?? { files: {} };
}

function writeKeptFiles(fed: Federation, team: RegistryEntry, record: KeptTeamFiles): void {
  const file = workspacePaths(team.location).keptFiles;
  fed.folderForWrite(dirname(file), team);
  writeFileAtomic(file, toJsonText(record));
}
