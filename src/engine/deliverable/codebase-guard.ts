import { createHash } from 'node:crypto';
import { fstatSync, type Dirent, type Stats } from 'node:fs';
import { readdir, readFile, realpath, stat as statOf } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { gitAsync, GitCommandError } from '../registry/git.js';
import { FED_DIR } from '../../core/layout.js';
import { CONFIG_FILE } from '../../core/schema/config.js';
import type { CodebaseBaseline } from '../../core/schema/launch-context.js';

/**
 * The read-only rule of the deliverable team (docs/design/spec.md §1: "read-only study … never modifies the codebase"):
 * what the codebase looks like, and what changed since. In a git repository that is HEAD plus every path
 * `git status` reports (tracked changes and untracked files) with a hash of its content, so a file that
 * was already dirty and is edited again still shows; elsewhere, every file's size and mtime. `.fed/` —
 * where team workspaces live — is not part of the codebase, nor is the federation's own config file at its
 * root: both are fed's control files, which a person (or fed: `fed schedule add`, the dashboard) changes
 * while teams run. What keeps an agent from writing either is its sandbox (the root is read-only in it),
 * not this rule. Files git ignores are not watched. The looks are asynchronous — git in a process of its
 * own, the files through the thread pool — so a launch in `fed serve` captures the codebase while the
 * server's heartbeat, actors and other launches go on (a `git status` or a walk of a large codebase takes
 * seconds); only hashing a changed file's bytes is done in this thread.
 */
const SKIPPED_DIRS = new Set([FED_DIR, '.git', 'node_modules']);

async function hashFile(path: string): Promise<string> {
  try {
    return createHash('sha1')
      .update(await readFile(path))
      .digest('hex');
  } catch {
    return 'unreadable';
  }
}

function insideFedDir(path: string): boolean {
  return path.split('/').includes(FED_DIR);
}

/**
 * The files this process's stdout and stderr are open on, by identity (`<device>:<inode>`): a launch
 * whose output is redirected into the codebase (`fed launch > l.out`) writes that file itself — a name
 * could be any file, the identity is the one the shell opened for fed.
 */
export function launcherOutputFiles(): string[] {
  const files = new Set<string>();
  for (const fd of [1, 2]) {
    try {
      const stat = fstatSync(fd);
      if (stat.isFile()) files.add(identityOf(stat));
    } catch {
      // Closed: nothing of fed's is written there.
    }
  }
  return [...files];
}

function identityOf(stat: Pick<Stats, 'dev' | 'ino'>): string {
  return `${stat.dev}:${stat.ino}`;
}

async function gitEntries(
  codebase: string,
  top: string,
  skip: ReadonlySet<string>,
  control: string | undefined,
): Promise<Record<string, string>> {
  const out = await gitAsync(codebase, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.'], {
    raw: true,
  });
  const entries: Record<string, string> = {};
  const records = out.split('\0');
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.length < 4) continue;
    const status = record.slice(0, 2);
    const path = record.slice(3);
    // A rename's record is followed by its source path.
    if (status.startsWith('R') || status.startsWith('C')) i++;
    if (insideFedDir(path) || join(top, path) === control) continue;
    if (skip.size > 0 && (await isSkipped(join(top, path), skip))) continue;
    entries[path] = `${status}:${await hashFile(join(top, path))}`;
  }
  return entries;
}

/** The stat of `path`, or undefined when nothing is there (a dangling link is "missing"). */
async function statIfAny(path: string): Promise<Stats | undefined> {
  try {
    return await statOf(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function isSkipped(path: string, skip: ReadonlySet<string>): Promise<boolean> {
  const stat = await statIfAny(path);
  return stat !== undefined && skip.has(identityOf(stat));
}

async function fileEntries(
  codebase: string,
  skip: ReadonlySet<string>,
  control: string | undefined,
): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    let listed: Dirent[];
    try {
      listed = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      // A folder removed (or replaced by a file) since its parent was listed is gone, as its files are.
      const code = (error as NodeJS.ErrnoException).code;
      if (dir !== codebase && (code === 'ENOENT' || code === 'ENOTDIR')) return;
      throw error;
    }
    const items = listed
      .filter((item) => !(item.isDirectory() && SKIPPED_DIRS.has(item.name)))
      .map((item) => ({ path: join(dir, item.name), folder: item.isDirectory() }))
      .filter(({ path }) => path !== control);
    // A folder's files are looked at together (each look a trip to the thread pool), kept in listing order.
    const stats = await Promise.all(items.map(({ path, folder }) => (folder ? undefined : statIfAny(path))));
    for (const [i, { path, folder }] of items.entries()) {
      if (folder) {
        await walk(path);
        continue;
      }
      const stat = stats[i];
      if (stat && skip.has(identityOf(stat))) continue;
      entries[relative(codebase, path)] = stat ? `${stat.size}:${stat.mtimeMs}` : 'missing';
    }
  };
  await walk(codebase);
  return entries;
}

/**
 * The git work tree `dir` is in — its top level and HEAD (null before the first commit) — or undefined
 * outside one. One git process where there is a HEAD: a launch captures the codebase before its agent
 * starts, so every process here is time the agent waits (docs/operations.md, dispatch latency).
 */
async function workTreeOf(dir: string): Promise<{ top: string; head: string | null } | undefined> {
  const ask = async (args: readonly string[]): Promise<string[] | undefined> => {
    try {
      return (await gitAsync(dir, ['rev-parse', '--is-inside-work-tree', '--show-toplevel', ...args])).split('\n');
    } catch (error) {
      // A killed git answered nothing: that is no "no".
      if (error instanceof GitCommandError && !error.killedBy) return undefined;
      throw error;
    }
  };
  const withHead = await ask(['--verify', '--quiet', 'HEAD']);
  if (withHead) return { top: withHead[1]!, head: withHead[2]! };
  // No HEAD to verify: a repository before its first commit, or no work tree at all.
  const without = await ask([]);
  return without ? { top: without[1]!, head: null } : undefined;
}

/** `root`: `dir` is the federation's root, whose config file is left out (see above). */
async function entriesOf(
  dir: string,
  skip: ReadonlySet<string>,
  root = false,
): Promise<{ isGit: boolean; head: string | null; entries: Record<string, string> }> {
  const tree = await workTreeOf(dir);
  // git names paths from its top level, which is a real path: so is the config's, to be compared.
  const control = root ? join(tree ? await realpath(dir) : dir, CONFIG_FILE) : undefined;
  return {
    isGit: tree !== undefined,
    head: tree?.head ?? null,
    entries: tree ? await gitEntries(dir, tree.top, skip, control) : await fileEntries(dir, skip, control),
  };
}

export interface CaptureScope {
  /** A worktree team's checkout: watched too, prefixed with its path relative to the codebase. */
  worktree?: string;
  /** Paths inside the worktree that are the team's own (its deliverable). */
  ignored?: readonly string[];
  /** Files that are the launcher's own output (launcherOutputFiles), left out. */
  launcherOutput?: readonly string[];
}

export async function captureCodebase(
  codebase: string,
  scope: CaptureScope = {},
  now = new Date(),
): Promise<CodebaseBaseline> {
  const launcherOutput = scope.launcherOutput ?? [];
  const skip = new Set(launcherOutput);
  const main = await entriesOf(codebase, skip, true);
  const entries = { ...main.entries };
  let head = main.head;
  if (scope.worktree) {
    const tree = await entriesOf(scope.worktree, skip);
    const prefix = relative(codebase, scope.worktree);
    const ignored = new Set(scope.ignored ?? []);
    for (const [path, fingerprint] of Object.entries(tree.entries))
      if (!ignored.has(path)) entries[join(prefix, path)] = fingerprint;
    if (tree.head !== main.head) head = `${main.head ?? 'none'} ${tree.head ?? 'none'}`;
  }
  return {
    codebase,
    ...(scope.worktree ? { worktree: scope.worktree, ignored: [...(scope.ignored ?? [])] } : {}),
    ...(launcherOutput.length > 0 ? { launcherOutput: [...launcherOutput] } : {}),
    kind: main.isGit ? 'git' : 'files',
    head,
    entries,
    capturedAt: now.toISOString(),
  };
}

/** The codebase now, in the same scope as the baseline. */
export async function recaptureCodebase(baseline: CodebaseBaseline): Promise<CodebaseBaseline> {
  return captureCodebase(baseline.codebase, {
    worktree: baseline.worktree,
    ignored: baseline.ignored,
    launcherOutput: baseline.launcherOutput,
  });
}

/** What changed between two captures (sorted paths; a moved HEAD is listed as `HEAD`). */
export function codebaseChanges(before: CodebaseBaseline, after: CodebaseBaseline): string[] {
  const changed = new Set<string>();
  if (before.head !== after.head)
    changed.add(`HEAD (${before.head?.slice(0, 12) ?? 'none'} → ${after.head?.slice(0, 12) ?? 'none'})`);
  for (const path of new Set([...Object.keys(before.entries), ...Object.keys(after.entries)])) {
    if (before.entries[path] !== after.entries[path]) changed.add(path);
  }
  return [...changed].sort();
}

export function describeCodebaseChanges(changes: readonly string[]): string {
  const shown = changes.slice(0, 20).join(', ');
  return `codebase modified: ${shown}${changes.length > 20 ? ` and ${changes.length - 20} more` : ''}`;
}
