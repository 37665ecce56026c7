import { existsSync, renameSync, statSync } from 'node:fs';
import { parseJsonText } from '../../core/json-text.js';
import { federationPaths } from './file-layout.js';
import type { Registry } from '../../core/schema/registry.js';
import { teamActivityLineSchema, type TeamActivityLine } from '../../core/schema/team-activity.js';
import { appendJsonLine } from '../../infra/fs/append-line.js';
import { unlinkQuietly, type WriteOptions } from '../../infra/fs/atomic-write.js';
import { readFileTail } from '../../infra/fs/read-json-file.js';

/**
 * A team's `lastActive` refresh (a send, at most once a minute per team) is a line appended to
 * `.fed/team-activity.jsonl`, not a rewrite of the registry: in a federation of a thousand teams the
 * registry is ~360 KB, and rewriting it for every refresh made each `fed event` of a team idle for a
 * minute pay a durable replace of it, and busy teams contend for its lock. Every registry read takes each
 * team's latest line as its `lastActive` when that is later (foldTeamActivity); every registry write folds
 * the lines in and lets them go (holdActivityForFold, then activityFolded), and an append that finds the
 * file past FOLD_FROM_BYTES makes such a write, so the file stays a few KB and the registry file itself is
 * never far behind.
 *
 * Two losses are accepted, each of a refresh made again by the team's next send a minute later: an append
 * whose open precedes a write's taking of the file and whose write follows the write's read of it; and the
 * last appends before a power failure (they are not fsynced: a torn or zero-filled line is skipped).
 */

/** Past this size an append has the registry take the activity in (about 130 refreshes). */
export const FOLD_FROM_BYTES = 8 * 1024;

/** Whether there is activity the registry should take in now (under its commit lock: no fold can run meanwhile). */
export function activityToFold(root: string): boolean {
  const paths = federationPaths(root);
  if (existsSync(paths.teamActivityFolding)) return true;
  return (statSync(paths.teamActivity, { throwIfNoEntry: false })?.size ?? 0) >= FOLD_FROM_BYTES;
}

/** At most this much of each activity file is read for a read (its end: the latest lines); a longer one is folded soon. */
const READ_BYTES = 256 * 1024;

/**
 * What a fold reads of the file it then removes: all of it in any federation that folds at all (about a
 * million refreshes). One whose folds kept failing meanwhile (the commit lock held by a stopped process)
 * loses only refreshes older than that.
 */
const FOLD_READ_BYTES = 64 * 1024 * 1024;

const FIX = 'move it aside; fed starts it again (only lastActive refreshes since the last registry write are in it)';

/** Appends a team's activity; returns the file's size after it (the caller folds past FOLD_FROM_BYTES). */
export function appendTeamActivity(root: string, line: TeamActivityLine, options: WriteOptions = {}): number {
  return appendJsonLine(federationPaths(root).teamActivity, line, options);
}

/**
 * Each team's latest activity in the activity files. The current file is read before the one being folded,
 * and a reader reads both before the registry: a refresh a fold moves meanwhile is then in what was read,
 * or in the registry text read after the fold wrote it — never missed by a read that overlaps a fold.
 */
export function readTeamActivity(root: string, options: { forFold?: boolean } = {}): Map<string, string> {
  const paths = federationPaths(root);
  const lines: string[] = [];
  for (const file of [paths.teamActivity, paths.teamActivityFolding]) {
    // Usually missing, both or one: told by an access check, where a failed open costs ~15 µs more for the
    // error it throws, stack and all (two every registry read: 4 % of a send's time). A `.fed` that is
    // not a folder is the registry read's to report, right after.
    if (!existsSync(file)) continue;
    const read = readFileTail(file, options.forFold ? FOLD_READ_BYTES : READ_BYTES, FIX);
    // A window that starts mid-line makes its first line a fragment, skipped like a torn last line.
    if (read) for (const line of read.tail.toString('utf8').split('\n')) lines.push(line);
  }
  return latestActivity(lines);
}

/**
 * Each team's latest time among activity lines: of the lines valid by their schema (others are skipped),
 * each team's latest, the first of equal ones. Found from the last line back, validating a line only when
 * it could be that — not earlier than the latest valid one found for its team: a busy team's file holds a
 * line per refresh, and validating each cost a fed command more than reading the file.
 */
function latestActivity(lines: readonly string[]): Map<string, string> {
  const latest = new Map<string, { at: string; ms: number }>();
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i]!.trim()) continue;
    const json = parseJsonText(lines[i]!);
    const value = json.ok && typeof json.value === 'object' && json.value !== null ? json.value : {};
    const { team, at } = value as Record<string, unknown>;
    if (typeof team !== 'string' || typeof at !== 'string') continue;
    const ms = Date.parse(at);
    const known = latest.get(team);
    if (known !== undefined && !(ms >= known.ms)) continue;
    if (teamActivityLineSchema.safeParse(value).success) latest.set(team, { at, ms });
  }
  return new Map([...latest].map(([team, { at }]) => [team, at]));
}

/**
 * `registry` with each team's `lastActive` the later of its own and its latest activity. Entries that
 * change are replaced, not changed in place (the caller's registry may share them); true when any did.
 */
export function foldTeamActivity(registry: Registry, activity: ReadonlyMap<string, string>): boolean {
  if (activity.size === 0) return false;
  let changed = false;
  registry.teams = registry.teams.map((entry) => {
    const at = activity.get(entry.domainId);
    if (at === undefined || (entry.lastActive !== undefined && Date.parse(entry.lastActive) >= Date.parse(at)))
      return entry;
    changed = true;
    return { ...entry, lastActive: at };
  });
  return changed;
}

/**
 * Under the registry's commit lock, once a write is decided and before it reads the activity: the current
 * file becomes the one being folded, so appends from now on start a new one. One left by a write that
 * crashed is folded first (the current file is taken by a later write).
 */
export function holdActivityForFold(root: string): void {
  const paths = federationPaths(root);
  if (existsSync(paths.teamActivityFolding)) return;
  try {
    renameSync(paths.teamActivity, paths.teamActivityFolding);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** After a registry write that folded the activity in (still under its lock): the folded file goes. */
export function activityFolded(root: string): void {
  unlinkQuietly(federationPaths(root).teamActivityFolding);
}
