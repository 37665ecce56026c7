import { existsSync, lstatSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { RefusedError } from '../core/errors.js';
import { FED_DIR, teamWorkspacePath } from '../core/layout.js';
import { workspacePaths } from './file/file-layout.js';
import type { RegistryEntry } from '../core/schema/registry.js';

/**
 * Nothing outside the federation (docs/design/invariants.md #9). A team's workspace is its registry
 * `location`, and fed writes signals, state and logs there and runs the team's agent in it — so before
 * any of that, the location must be a real directory inside the federation root once every symbolic link
 * is resolved — the very one fed made for that team, never another team's or the codebase. A registry
 * edited (or copied from another federation) to point elsewhere, and a workspace an agent replaced with a
 * link, are refused with the team, the path, and how to fix it.
 */

/** True when `path` is `dir` itself or below it (both already resolved). */
function isWithin(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (rel.split(sep)[0] !== '..' && !isAbsolute(rel));
}

/** Where the registry says the team is, relative to the root (`''`: the root itself); undefined when outside it. */
function relativeLocation(root: string, realRoot: () => string, location: string): string | undefined {
  if (isWithin(root, location)) return relative(root, location);
  const real = realRoot();
  return isWithin(real, location) ? relative(real, location) : undefined;
}

/**
 * The workspace this federation has for a team whose location points into another federation's
 * `.fed/teams/<domain>` — what happens when a federation folder is copied or moved — when that folder
 * exists here; undefined otherwise. Worktrees are not relocated: a copied worktree is still linked to the
 * original repository (and `git worktree repair` in the copy would relink the original's to the copy).
 */
export function relocatedWorkspace(root: string, entry: RegistryEntry): string | undefined {
  if (entry.placementType !== 'directory' || basename(entry.location) !== entry.domain) return undefined;
  if (basename(dirname(entry.location)) !== 'teams' || basename(dirname(dirname(entry.location))) !== FED_DIR)
    return undefined;
  const here = teamWorkspacePath(root, entry.domain, 'directory');
  if (here === entry.location || !existsSync(here) || lstatSync(here).isSymbolicLink() || !statSync(here).isDirectory())
    return undefined;
  return here;
}

/**
 * A federation copied or moved from another folder still registers its teams at the original's
 * workspaces (`<original>/.fed/teams/<domain>`), and a command that read them there — `fed monitor`,
 * the dashboard, `fed runs` — would show or act on the other federation's files. When any team that is
 * not archived lies outside the root where this root has its own workspace for it (`relocatedWorkspace`,
 * what `fed doctor` finds), that team's workspace refusal is thrown: it says the federation looks copied
 * and to run `fed doctor --fix`. A federation shared across machines has teams elsewhere by design.
 */
export function refuseCopiedFederation(
  root: string,
  teams: readonly RegistryEntry[],
  options: WorkspaceCheckOptions = {},
): void {
  if (options.sharedAcrossMachines) return;
  const below = root.endsWith(sep) ? root : root + sep;
  for (const entry of teams) {
    // Most entries lie below the root as written: nothing to resolve.
    if (entry.location.startsWith(below) || entry.status === 'archived') continue;
    if (relocatedWorkspace(root, entry) !== undefined) checkWorkspace(root, entry, options);
  }
}

/**
 * The entry as this federation has it: a team whose location lies outside the root but whose workspace
 * this copied or moved federation has (`relocatedWorkspace`) at that workspace; any other as registered.
 */
export function locatedHere(root: string, entry: RegistryEntry): RegistryEntry {
  let resolvedRoot: string | undefined;
  if (relativeLocation(root, () => (resolvedRoot ??= realpathSync.native(root)), entry.location) !== undefined)
    return entry;
  const here = relocatedWorkspace(root, entry);
  return here === undefined ? entry : { ...entry, location: here };
}

/**
 * A team of a federation shared across machines whose workspace is not below this root: it works in
 * another working directory (on its `host`, or another checkout on this one). Nothing is wrong; fed just
 * writes and runs for a team only where its workspace is.
 */
function elsewhere(root: string, entry: RegistryEntry): RefusedError {
  return new RefusedError(
    'TEAM_ELSEWHERE',
    `team "${entry.domainId}" works in another working directory of the federation: ${entry.location}${entry.host ? ` on host ${entry.host}` : ''}, not below ${root}; ` +
      `fed writes and runs for a team only where its workspace is — run this there (fed --root <that working directory> …)`,
  );
}

function outside(root: string, entry: RegistryEntry, problem: string, options: WorkspaceCheckOptions): RefusedError {
  if (options.sharedAcrossMachines) return elsewhere(root, entry);
  const relocated = relocatedWorkspace(root, entry);
  const fix = relocated
    ? `this federation looks copied or moved: its own workspace for the team is ${relocated}; point the registry there with: fed doctor --fix`
    : entry.placementType === 'worktree'
      ? `a git worktree cannot be moved by copying it: archive the team (fed team archive ${entry.domainId}) and onboard a new one here`
      : `move the workspace to ${teamWorkspacePath(root, entry.domain, entry.placementType)} and run fed doctor --fix, or archive the team with: fed team archive ${entry.domainId}`;
  return new RefusedError(
    'WORKSPACE_OUTSIDE_ROOT',
    `the workspace of team "${entry.domainId}" is outside the federation root ${root}: ${problem}; fed never writes or runs there — ${fix}`,
  );
}

/**
 * Inside the root, a team's workspace is only ever the one fed made for it: anywhere else — another
 * team's workspace, the codebase, the root — two teams would share an inbox and a lifecycle, or fed would
 * write and run an agent among the project's files.
 */
function notItsOwn(entry: RegistryEntry, own: string): RefusedError {
  return new RefusedError(
    'WORKSPACE_NOT_ITS_OWN',
    `the registry places team "${entry.domainId}" at ${entry.location}, which is not the workspace fed made for it (${own}): ` +
      `it may be another team's workspace or the codebase, and fed never writes or runs there for this team — ` +
      `if the registry was edited, restore the team's location to ${own}; otherwise archive the team with: fed team archive ${entry.domainId}`,
  );
}

/** Refused as going through a link: `path`, the team's workspace or a folder of it, resolves to `target`. */
export function linked(entry: RegistryEntry, path: string, target: string): RefusedError {
  return new RefusedError(
    'WORKSPACE_SYMLINK',
    `the workspace of team "${entry.domainId}" goes through a symbolic link: ${path} → ${target}; fed never writes or runs through a link — ` +
      `replace the link with the real directory (or remove it and restore the workspace), then retry`,
  );
}

/** The refusals of `teamWorkspace`: the workspace is not one fed may write or run in here. */
export const WORKSPACE_REFUSALS: ReadonlySet<string> = new Set([
  'WORKSPACE_OUTSIDE_ROOT',
  'WORKSPACE_NOT_ITS_OWN',
  'WORKSPACE_SYMLINK',
  'WORKSPACE_MISSING',
  'WORKSPACE_NOT_A_DIRECTORY',
]);

export function isWorkspaceRefusal(error: unknown): error is RefusedError {
  return error instanceof RefusedError && WORKSPACE_REFUSALS.has(error.code);
}

export interface WorkspaceCheckOptions {
  /**
   * The federation shares its registry with other machines (JetStream): a workspace outside this root is
   * another working directory's, refused as TEAM_ELSEWHERE rather than as misplaced.
   */
  sharedAcrossMachines?: boolean;
}

/**
 * The team's workspace, checked: it exists, is a directory, is the one fed made for the team inside the
 * federation root, and neither it nor its `.fed/` runtime folders is (or goes through) a symbolic link.
 * Returns the location.
 */
export function teamWorkspace(root: string, entry: RegistryEntry, options: WorkspaceCheckOptions = {}): string {
  return checkWorkspace(root, entry, options).location;
}

/** A workspace that passed `teamWorkspace`'s check, with the path every link on the way resolved. */
export interface CheckedWorkspace {
  location: string;
  /** The location resolved (equal to it below the resolved root): what a folder in it must resolve below. */
  real: string;
}

/** `teamWorkspace`, also returning the resolved path (src/adapters/checked-workspaces.ts re-checks writes with it). */
export function checkWorkspace(
  root: string,
  entry: RegistryEntry,
  options: WorkspaceCheckOptions = {},
): CheckedWorkspace {
  let resolvedRoot: string | undefined;
  const realRoot = (): string => (resolvedRoot ??= realpathSync.native(root));
  const rel = relativeLocation(root, realRoot, entry.location);
  if (rel === undefined) throw outside(root, entry, `the registry places it at ${entry.location}`, options);
  const own = teamWorkspacePath(root, entry.domain, entry.placementType);
  if (rel !== relative(root, own)) throw notItsOwn(entry, own);
  let real: string;
  try {
    real = realpathSync.native(entry.location);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    // The path exists but does not resolve: a link to nowhere.
    if (lstatOf(entry.location)) throw linked(entry, entry.location, 'a missing target');
    throw new RefusedError(
      'WORKSPACE_MISSING',
      `the workspace of team "${entry.domainId}" (${entry.location}, from the registry) does not exist; restore it, or archive the team with: fed team archive ${entry.domainId}`,
    );
  }
  // Anything but the lexical path means a link on the way, even one that stays inside the root (it could
  // make one team write into another's workspace). A location that resolves to itself needs no resolved root.
  if (real !== join(root, rel) && real !== join(realRoot(), rel)) throw linked(entry, entry.location, real);
  const paths = workspacePaths(entry.location);
  let fedDir: Stats | undefined;
  try {
    fedDir = lstatSync(paths.fedDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: the location itself (resolved, so no link) is not a directory.
    if (code === 'ENOTDIR') throw notADirectory(entry);
    if (code !== 'ENOENT') throw error;
    if (!statSync(real).isDirectory()) throw notADirectory(entry);
  }
  if (fedDir?.isSymbolicLink()) throw linked(entry, paths.fedDir, realTarget(paths.fedDir));
  if (!fedDir?.isDirectory()) return { location: entry.location, real };
  // The other runtime folders, from a listing of the folder each is in (one call for several lstats): the
  // file backend's among them whichever backend keeps the signals, as `fed migrate to-files` writes there.
  const link =
    linkAmong(paths.fedDir, [paths.signals, paths.state, paths.launch, paths.logs, paths.history]) ??
    linkAmong(paths.signals, [paths.inbox, paths.outbox]);
  if (link !== undefined) throw linked(entry, link, realTarget(link));
  return { location: entry.location, real };
}

function notADirectory(entry: RegistryEntry): RefusedError {
  return new RefusedError(
    'WORKSPACE_NOT_A_DIRECTORY',
    `the workspace of team "${entry.domainId}" (${entry.location}) is not a directory; restore it, or archive the team with: fed team archive ${entry.domainId}`,
  );
}

/** The first of `folders` — entries of `dir` — that is a symbolic link; undefined when none is (or `dir` is not there). */
function linkAmong(dir: string, folders: readonly string[]): string | undefined {
  let links: Set<string>;
  try {
    links = new Set(
      readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isSymbolicLink())
        .map((entry) => entry.name),
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  return folders.find((folder) => links.has(basename(folder)));
}

/** One lstat: undefined when nothing is there (or a level above is not a directory). */
function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
      return undefined;
    throw error;
  }
}

function realTarget(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return 'a missing target';
  }
}
