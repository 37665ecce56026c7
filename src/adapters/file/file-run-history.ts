import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fsyncDirectory, unlinkQuietly, writeFileAtomic, type WriteOptions } from '../../infra/fs/atomic-write.js';
import { ensureDirectory } from '../../infra/fs/ensure-directory.js';
import { readJsonFile, readTextFile } from '../../infra/fs/read-json-file.js';
import { workspacePaths } from './file-layout.js';
import type { KeptRun } from '../../ports/lifecycle-store.js';
import { envelopeSchema, journalLineSchema, type JournalLine } from '../../core/schema/lifecycle-state.js';
import { parseJsonLines } from '../../core/schema/json-lines.js';

/**
 * Earlier runs of a team's lifecycle in file-signal-v1: `<workspace>/.fed/history/run-<n>/`, each with the
 * run's last `lifecycle.json` and its `journal.jsonl`, as `fed team retry` left them.
 */
function runFolders(workspace: string): { run: number; dir: string }[] {
  let names: string[];
  try {
    names = readdirSync(workspacePaths(workspace).history);
  } catch {
    return [];
  }
  return names
    .filter((name) => /^run-\d+$/.test(name))
    .map((name) => ({ run: Number(name.slice(4)), dir: join(workspacePaths(workspace).history, name) }))
    .sort((a, b) => a.run - b.run);
}

export function keptRunsOf(workspace: string): KeptRun[] {
  const envelopeName = basename(workspacePaths(workspace).envelope);
  return runFolders(workspace).flatMap(({ run, dir }) => {
    const envelope = readJsonFile(join(dir, envelopeName), envelopeSchema);
    return envelope ? [{ run, location: dir, envelope }] : [];
  });
}

/** The journal of the current run, or of kept run `run`; torn or foreign lines are skipped. */
export function runJournal(workspace: string, run?: number): JournalLine[] {
  const paths = workspacePaths(workspace);
  const file = run === undefined ? paths.journal : join(paths.history, `run-${run}`, basename(paths.journal));
  return parseJsonLines(readTextFile(file, 'move it aside; fed starts a new journal') ?? '', journalLineSchema);
}

/**
 * Keep the current run as `run-<n>`: n is one more than the last kept run — or that one, when it holds this
 * very envelope or none (a keep interrupted after copying it, or after making its folder, and run again). The envelope is copied, durably (the
 * next write replaces it), the journal moved (the next run's starts empty). When an interrupted keep is run again the
 * kept folder has the journal already, and what is here again is only lines re-appended from the envelope:
 * never moved over the kept one.
 */
export function keepCurrentRun(workspace: string, options: WriteOptions = {}): KeptRun {
  const paths = workspacePaths(workspace);
  const envelopeName = basename(paths.envelope);
  const last = runFolders(workspace).at(-1);
  const current = readFileSync(paths.envelope, 'utf8');
  // The last run folder is this run's when it keeps this very envelope (a keep interrupted after writing
  // it), or none yet (interrupted right after making the folder: the envelope is always its first file).
  const lastEnvelope = last && join(last.dir, envelopeName);
  const keptBefore = lastEnvelope && (!existsSync(lastEnvelope) || readFileSync(lastEnvelope, 'utf8') === current);
  const run = !last ? 1 : keptBefore ? last.run : last.run + 1;
  const dir = join(paths.history, `run-${run}`);
  ensureDirectory(dir, options);
  writeFileAtomic(join(dir, envelopeName), current, options);
  const keptJournal = join(dir, basename(paths.journal));
  if (existsSync(keptJournal)) unlinkQuietly(paths.journal);
  else if (existsSync(paths.journal)) renameSync(paths.journal, keptJournal);
  if (options.durable ?? true) {
    fsyncDirectory(dir);
    fsyncDirectory(paths.state);
  }
  return { run, location: dir, envelope: envelopeSchema.parse(JSON.parse(current)) };
}
