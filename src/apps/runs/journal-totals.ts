import { statSync } from 'node:fs';
import { FedError } from '../../core/errors.js';
import { parseJsonText, toJsonText } from '../../core/json-text.js';
import { workspacePaths } from '../../core/layout.js';
import { parseJsonLines } from '../../core/schema/json-lines.js';
import { launchRunSchema, runsTotalsSchema, type RunsTotals } from '../../core/schema/launch-run.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { readFileBounded } from '../../infra/fs/read-file-bounded.js';
import { readFileFrom } from '../../infra/fs/read-json-file.js';
import type { Federation } from '../../engine/context.js';
import { totalRuns, type RunTotals } from './run-totals.js';

/** How much of the journal before the offset added up is checked to be what was added up. */
const EDGE_BYTES = 1024;
/** The totals file is fed's own small cache: far bigger is not one fed wrote. */
const MAX_TOTALS_BYTES = 64 * 1024;
const JOURNAL_FIX = 'move it aside; fed starts a new run journal';

/**
 * A team's runs added up (`fed team show`, the dashboard's team card) without validating every run of its
 * journal each time: what the journal's first bytes add up to is kept beside it (`runs.totals.json`,
 * src/core/schema/launch-run.ts), and a reader validates and adds only the runs appended since, then keeps
 * the new totals. The journal is append-only; one moved aside, shortened or rewritten no longer matches the
 * bytes before the kept offset (kept as they are, in base64: no hash to compute, so `fed team show` does not
 * load node:crypto, a tenth of a bare node start), and is added up from its start again. A missing, unreadable
 * or foreign totals file means the same: it is only a cache, written best effort and without fsync.
 */
export function teamRunTotals(fed: Federation, team: RegistryEntry): RunTotals {
  const paths = workspacePaths(team.location);
  if (nothingAt(paths.runsJournal)) return totalRuns([]);
  const kept = readKept(paths.runsTotals);
  if (kept) {
    const from = kept.bytes - Math.min(kept.bytes, EDGE_BYTES);
    const read = readFileFrom(paths.runsJournal, from, JOURNAL_FIX);
    if (read === undefined) return totalRuns([]);
    const edge = read.bytes.subarray(0, kept.bytes - from);
    if (read.size >= kept.bytes && edgeText(edge) === kept.edge)
      return addUp(fed, team, { bytes: read.bytes, from, added: kept.bytes - from, before: kept });
  }
  const read = readFileFrom(paths.runsJournal, 0, JOURNAL_FIX);
  if (read === undefined) return totalRuns([]);
  return addUp(fed, team, { bytes: read.bytes, from: 0, added: 0 });
}

/**
 * The journal's bytes from offset `from`, of which the first `added` are added up in `before`: the runs
 * of the complete lines after them are added and kept; a last line without its newline yet (being
 * appended, or torn) is counted when it is a run, but not kept, so it is read again next time.
 */
function addUp(
  fed: Federation,
  team: RegistryEntry,
  journal: { bytes: Buffer; from: number; added: number; before?: RunsTotals },
): RunTotals {
  const { bytes, from, added, before } = journal;
  const end = Math.max(added, bytes.lastIndexOf(0x0a) + 1);
  const complete = totalRuns(runsIn(bytes.subarray(added, end)), before?.totals);
  if (end > added) {
    const edge = bytes.subarray(Math.max(0, end - EDGE_BYTES), end);
    keep(fed, team, { bytes: from + end, edge: edgeText(edge), totals: complete });
  }
  return totalRuns(runsIn(bytes.subarray(end)), complete);
}

function runsIn(bytes: Buffer) {
  return bytes.length === 0 ? [] : parseJsonLines(bytes.toString('utf8'), launchRunSchema);
}

function edgeText(bytes: Buffer): string {
  return bytes.toString('base64');
}

/** The kept totals, or undefined when there are none usable (missing, a link, a FIFO, oversized, not the format). */
/**
 * Whether nothing is at `path` (a team never launched has no journal), told without the exception a failed
 * open throws: a dashboard starting over a thousand such teams spent ~60 ms on two a team. Anything else
 * (a journal fed may not look at) is left to the read, which says what is wrong.
 */
function nothingAt(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

function readKept(file: string): RunsTotals | undefined {
  try {
    const read = readFileBounded(file, { maxBytes: MAX_TOTALS_BYTES, noFollow: true });
    const json = read.ok ? parseJsonText(read.bytes.toString('utf8')) : undefined;
    const parsed = json?.ok ? runsTotalsSchema.safeParse(json.value) : undefined;
    return parsed?.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Replaced by rename, after the workspace check of its folder: the folder is the agent's to write, and a
 * link or FIFO it planted at the path is replaced, never written through. A write that fails (a read-only
 * workspace, a refused folder) is skipped: the next reader adds the runs up again.
 */
function keep(fed: Federation, team: RegistryEntry, totals: RunsTotals): void {
  const paths = workspacePaths(team.location);
  try {
    fed.folderForWrite(paths.logs, team, { durable: false });
    writeFileAtomic(paths.runsTotals, toJsonText(totals), { durable: false });
  } catch (error) {
    if (!(error instanceof FedError) && !(error as NodeJS.ErrnoException).code) throw error;
  }
}
