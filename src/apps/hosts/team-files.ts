import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { workspacePaths } from '../../core/layout.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { writeFileAtomic } from '../../infra/fs/atomic-write.js';

/**
 * The files of a team's workspace that are the team's own — what it produced and learned, and the record
 * of its runs — by the name each is kept under (src/ports/team-file-store.ts). Transcripts are not among
 * them: large, and only ever read to look back.
 */
function teamFiles(fed: Federation, team: RegistryEntry): Record<string, string> {
  const paths = workspacePaths(team.location);
  return {
    deliverable: join(team.location, fed.config.deliverable),
    'learning-log': paths.learningLog,
    'runs-journal': paths.runsJournal,
    'runs-totals': paths.runsTotals,
  };
}

/**
 * Copy the team's own files to the backend's store, as `fed serve` does after each launch, so a move to
 * another host finds them there. Nothing on a backend without one (files: one machine). Returns the names kept.
 */
export async function keepTeamFiles(fed: Federation, team: RegistryEntry): Promise<string[]> {
  const store = fed.backend.teamFiles;
  if (!store) return [];
  const kept: string[] = [];
  for (const [name, path] of Object.entries(teamFiles(fed, team))) {
    let content: Buffer;
    try {
      content = readFileSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    await store.put(team.domainId, name, content);
    kept.push(name);
  }
  return kept;
}

/**
 * Write the team's kept files into its workspace, new on this host (a team moved here). `missingOnly`: a
 * file the workspace has is left as it is (`fed migrate to-files` into a workspace that may be the team's
 * own, newer than the copy). Returns the names written.
 */
export async function restoreTeamFiles(
  fed: Federation,
  team: RegistryEntry,
  { missingOnly = false }: { missingOnly?: boolean } = {},
): Promise<string[]> {
  const store = fed.backend.teamFiles;
  if (!store) return [];
  const kept = await store.read(team.domainId);
  const written: string[] = [];
  for (const [name, path] of Object.entries(teamFiles(fed, team))) {
    const content = kept.get(name);
    if (content === undefined || (missingOnly && existsSync(path))) continue;
    fed.folderForWrite(dirname(path), team);
    writeFileAtomic(path, content);
    written.push(name);
  }
  return written;
}
