import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, type Dirent } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { RefusedError } from '../../core/errors.js';
import { federationPaths, worktreeBranch } from '../../core/layout.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { createFileExclusive, writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { withLock } from '../../infra/fs/lock.js';
import { isRealFolder, realPathOr } from '../../infra/fs/path-kind.js';
import { gitAsync, GitCommandError, gitRemote, gitSucceedsAsync } from './git.js';
import { adminDirsOf } from './worktree-git.js';

/**
 * A sandboxed coding team's git of its own (issue 80). Its agent commits on its branch `fed/<team>` in its
 * worktree, but writes nothing every branch shares: inside the sandbox the repository's objects are read-only
 * and its refs too, but for a folder of the team's own mounted over `refs/heads/fed/` (git updates a ref by
 * writing `<ref>.lock` beside it and renaming it over: one ref file alone could not be written) and the
 * same for its reflog; new objects go to a store of the team's own, mounted over the repository's
 * `objects/`, which reads the repository's objects through git's alternates. fed, outside the sandbox,
 * brings the branch into the repository (bringInTeamBranch): it fetches from the store — git checks every
 * object it receives — and moves the real `refs/heads/fed/<team>` there only from where the store started.
 *
 * The store is a bare repository at `.fed/git/<team>` of the federation root (read-only in every sandbox):
 * `HEAD`, `config`, `synced` (the commit the branch was at when the store was last set to it) are fed's;
 * `objects/`, `refs/heads/fed/` and `logs/refs/heads/fed/` are what the agent writes; `repo-objects/` is
 * where the sandbox shows the repository's objects read-only.
 */
export interface TeamGit {
  /** The repository's common git folder: objects, refs, config, hooks. */
  common: string;
  /** The worktree's own folder in it (`<common>/worktrees/<name>`): its index, HEAD and logs. */
  admin: string;
  /** The team's store. */
  store: string;
  /** The team's branch, `fed/<domain>`. */
  branch: string;
}

/** Where a team's store is. */
export function teamGitStorePath(root: string, domain: string): string {
  return join(federationPaths(root).gitStores, domain);
}

/** The store's paths: fed's own files, the folders the agent writes, and the mount point of the repository's objects. */
export function storePaths(store: string, branch: string) {
  return {
    store,
    head: join(store, 'HEAD'),
    config: join(store, 'config'),
    synced: join(store, 'synced'),
    objects: join(store, 'objects'),
    objectsInfo: join(store, 'objects', 'info'),
    alternates: join(store, 'objects', 'info', 'alternates'),
    /** The folder of the team's branch and of its reflog (`refs/heads/fed`, `logs/refs/heads/fed`). */
    refs: join(store, 'refs', 'heads', 'fed'),
    logs: join(store, 'logs', 'refs', 'heads', 'fed'),
    ref: join(store, 'refs', 'heads', ...branch.split('/')),
    repoObjects: join(store, 'repo-objects'),
    lock: join(store, 'bring-in.lock'),
  };
}

/** The repository's folders the sandbox mounts the store's over (they must exist to be mounted on). */
export function repositoryMountPoints(common: string) {
  return {
    objects: join(common, 'objects'),
    objectsInfo: join(common, 'objects', 'info'),
    refs: join(common, 'refs', 'heads', 'fed'),
    logs: join(common, 'logs', 'refs', 'heads', 'fed'),
  };
}

/** A ref's value as git writes it in a loose ref file: a whole object id. */
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The worktree team's git folders in the repository whose common git folder is `common`, refused unless
 * the worktree still points at the one git made for it.
 */
function teamGitOf(root: string, team: RegistryEntry, common: string | undefined): TeamGit {
  const branch = worktreeBranch(team.domain);
  const broken = (why: string) =>
    new RefusedError(
      'TEAM_GIT_BROKEN',
      `team "${team.domainId}"'s worktree ${team.location} ${why}; repair it (git worktree repair ${team.location}) or onboard the team again`,
    );
  if (!common) throw broken(`is not in a git repository at ${root}`);
  const [admin] = adminDirsOf(common, team.location);
  if (!admin) throw broken(`has no git folder of its own in ${join(common, 'worktrees')}`);
  let pointer: string;
  try {
    pointer = readFileSync(join(team.location, '.git'), 'utf8').trim();
  } catch {
    throw broken('has no .git file');
  }
  // Compared as the machine has them: the root may have been named through a link, and git writes real paths.
  const pointsAt = pointer.startsWith('gitdir: ') ? realPathOr(pointer.slice('gitdir: '.length)) : undefined;
  if (pointsAt !== realPathOr(admin)) throw broken(`has a .git that points elsewhere than ${admin} (${pointer})`);
  return { common, admin, store: teamGitStorePath(root, team.domain), branch };
}

/**
 * Make the team's store ready for a sandboxed run: what an earlier run committed brought in first (a
 * launcher killed before it did), then the branch's folder and reflog fresh, holding the branch where the
 * repository has it, and the mount points the sandbox needs. Returns the git folders, and the warning of
 * commits that could not be brought in (kept at `refs/fed/incoming/<team>`).
 */
export async function readyTeamGit(root: string, team: RegistryEntry): Promise<{ git: TeamGit; warning?: string }> {
  const store = teamGitStorePath(root, team.domain);
  const paths = storePaths(store, worktreeBranch(team.domain));
  mkdirSync(store, { recursive: true });
  // Under the store's lock: a review bringing the branch in meanwhile would read the folders being reset.
  return withLock(paths.lock, async () => {
    const warning = await bringInLocked(root, team, paths);
    const [common, tip] = await commonAndTip(root, worktreeBranch(team.domain));
    const git = teamGitOf(root, team, common);
    resetStore(git, paths, tip);
    return { git, warning };
  });
}

/** The store set to `tip` for the next run (readyTeamGit), under its lock. */
function resetStore(git: TeamGit, paths: ReturnType<typeof storePaths>, tip: string): void {
  // What the last agent left in its folders goes: they hold the branch where the repository has it, and
  // nothing else (a relaunch that finds them so, as the last run of an agent that committed nothing left
  // them, has nothing to do).
  const refName = git.branch.split('/').at(-1)!;
  const asLeft =
    readObjectId(paths.ref) === tip && onlyEntry(paths.refs, refName) && onlyEntry(paths.logs, refName, true);
  if (!asLeft)
    for (const folder of [paths.refs, paths.logs]) {
      rmSync(folder, { recursive: true, force: true });
      mkdirSync(folder, { recursive: true });
    }
  for (const folder of [paths.objectsInfo, paths.repoObjects]) mkdirSync(folder, { recursive: true });
  createFileExclusive(paths.head, `ref: refs/heads/${git.branch}\n`, { durable: false });
  createFileExclusive(paths.config, '[core]\n\trepositoryformatversion = 0\n\tbare = true\n', { durable: false });
  // Inside the sandbox the first is the repository's objects (the second is the store itself, which git
  // passes over); outside, the first is an empty folder and the second the repository's objects.
  writeIfChanged(paths.alternates, `${paths.repoObjects}\n${join(git.common, 'objects')}\n`);
  if (!asLeft) writeFileAtomic(paths.ref, `${tip}\n`, { durable: false });
  if (readObjectId(paths.synced) !== tip) writeFileAtomic(paths.synced, `${tip}\n`);
  const mounts = repositoryMountPoints(git.common);
  for (const folder of [mounts.refs, mounts.logs]) mkdirSync(folder, { recursive: true });
  // The worktree's own config, read where the repository turns extensions.worktreeConfig on: made empty
  // (which git reads as no config) so the sandbox can keep it read-only.
  createFileExclusive(join(git.admin, 'config.worktree'), '', { durable: false });
}

/**
 * The repository's common git folder and the commit `branch` is at: read where git keeps them plainly (the
 * root's own `.git` folder, the branch's loose ref file) — a launch waits for this — else asked of git (a
 * root inside a repository or a worktree, a packed ref, another ref storage).
 */
async function commonAndTip(root: string, branch: string): Promise<[string | undefined, string]> {
  const dotGit = join(root, '.git');
  if (isRealFolder(dotGit) && !existsSync(join(dotGit, 'commondir'))) {
    const tip = readObjectId(join(dotGit, 'refs', 'heads', ...branch.split('/')));
    if (tip) return [dotGit, tip];
  }
  const [common, tip] = (
    await gitAsync(root, ['rev-parse', '--path-format=absolute', '--git-common-dir', `refs/heads/${branch}^{commit}`])
  ).split('\n');
  return [common, tip!];
}

/** How long fed's git may take to fetch from a team's store: it reads what the agent wrote, which may be made to stall it. */
const FETCH_TIMEOUT_MS = 120_000;

/**
 * Bring what the team's agent committed in its sandbox into the repository: fetched from its store into
 * `refs/fed/incoming/<team>` (git checks every object), then `refs/heads/fed/<team>` moved there — only
 * from the commit the store was set to, so a branch that moved outside meanwhile (a commit of yours in the
 * worktree) is never overwritten: the agent's commits then stay at the incoming ref. Nothing to do without
 * a store or when the agent committed nothing since. One at a time per team (the launcher at the end of a
 * run, a review from the dashboard). Returns what to say — commits kept aside, or a store fed could not
 * bring in (what its agent left there is its own input: never thrown over a run or a review) — or undefined.
 */
export async function bringInTeamBranch(root: string, team: RegistryEntry): Promise<string | undefined> {
  const store = teamGitStorePath(root, team.domain);
  if (!isStore(store)) return undefined;
  const paths = storePaths(store, worktreeBranch(team.domain));
  // Most runs committed nothing: that is seen without the lock.
  if (!committedIn(paths)) return undefined;
  return withLock(paths.lock, () => bringInLocked(root, team, paths));
}

/** What the agent committed in the store since it was set (its branch's ref moved from `synced`), if anything. */
function committedIn(paths: ReturnType<typeof storePaths>): { synced: string } | undefined {
  const synced = readObjectId(paths.synced);
  const moved = readObjectId(paths.ref);
  return synced && moved && moved !== synced ? { synced } : undefined;
}

/** bringInTeamBranch, its lock held. */
async function bringInLocked(
  root: string,
  team: RegistryEntry,
  paths: ReturnType<typeof storePaths>,
): Promise<string | undefined> {
  const { synced } = committedIn(paths) ?? {};
  if (!synced) return undefined;
  const branch = worktreeBranch(team.domain);
  const real = `refs/heads/${branch}`;
  // Merged and cleaned up, or removed: there is no branch left to bring anything onto.
  if (!(await gitSucceedsAsync(root, ['rev-parse', '--verify', '--quiet', real]))) return undefined;
  const notBroughtIn = (why: string) =>
    `team "${team.domainId}"'s agent committed on ${branch} in its sandbox, but fed could not bring it in: ${why}; its next launch starts the branch again from ${synced.slice(0, 12)}`;
  const odd = oddEntry(paths.refs) ?? oddEntry(paths.logs);
  if (odd) return notBroughtIn(`its store holds ${odd}, which is no file or folder`);
  const incoming = `refs/fed/incoming/${team.domain}`;
  try {
    await gitRemote(
      root,
      [
        '-c',
        'transfer.fsckObjects=true',
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        paths.store,
        `+${real}:${incoming}`,
      ],
      FETCH_TIMEOUT_MS,
    );
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    return notBroughtIn(
      error.killedBy ? `fetching from its store took over ${FETCH_TIMEOUT_MS / 1000} s` : error.stderr,
    );
  }
  const to = await gitAsync(root, ['rev-parse', '--verify', `${incoming}^{commit}`]);
  try {
    await gitAsync(root, [
      'update-ref',
      '-m',
      `fed: brought in from team ${team.domainId}'s sandbox`,
      real,
      to,
      synced,
    ]);
  } catch (error) {
    if (!(error instanceof GitCommandError) || error.killedBy) throw error;
    const now = await gitAsync(root, ['rev-parse', real]);
    // Already there (a launcher killed between moving the branch and writing `synced`): brought in.
    if (now !== to)
      return `team "${team.domainId}"'s agent committed ${to.slice(0, 12)} on ${branch} in its sandbox, but ${branch} moved meanwhile (to ${now.slice(0, 12)}): its commits are kept at ${incoming}; merge them into ${branch} in the team's worktree, then launch it again`;
  }
  await gitAsync(root, ['update-ref', '-d', incoming]);
  writeFileAtomic(paths.synced, `${to}\n`);
  return undefined;
}

/** Remove the team's store (its worktree and branch are gone: a merge's cleanup, a removal). */
export async function removeTeamGitStore(root: string, domain: string): Promise<void> {
  await rm(teamGitStorePath(root, domain), { recursive: true, force: true });
  await gitSucceedsAsync(root, ['update-ref', '-d', `refs/fed/incoming/${domain}`]);
}

/**
 * The first entry under `folder` that is neither a file nor a folder (a FIFO would stall the git that
 * reads it, a link lead it elsewhere), or undefined; nothing there is nothing odd.
 */
function oddEntry(folder: string): string | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const path = join(folder, entry.name);
    const odd = entry.isDirectory() ? oddEntry(path) : entry.isFile() ? undefined : path;
    if (odd) return odd;
  }
  return undefined;
}

/** `folder` is a real folder holding `name` alone (or nothing, where `empty` allows it). */
function onlyEntry(folder: string, name: string, empty = false): boolean {
  try {
    if (!lstatSync(folder).isDirectory()) return false;
    const entries = readdirSync(folder);
    return (entries.length === 1 && entries[0] === name) || (empty && entries.length === 0);
  } catch {
    return false;
  }
}

/** `file` holds `text`, written (not durably: fed writes it again before each run) only when it did not. */
function writeIfChanged(file: string, text: string): void {
  try {
    if (lstatSync(file).isFile() && readFileSync(file, 'utf8') === text) return;
  } catch {
    // Not there yet.
  }
  writeFileAtomic(file, text, { durable: false });
}

/** A store fed made: a real folder (never a link) holding fed's `synced`. */
function isStore(store: string): boolean {
  try {
    return lstatSync(store).isDirectory() && existsSync(join(store, 'synced'));
  } catch {
    return false;
  }
}

/** The object id a loose ref file (or `synced`) holds, read without following a link; undefined if none. */
function readObjectId(file: string): string | undefined {
  try {
    if (!lstatSync(file).isFile()) return undefined;
    const value = readFileSync(file, 'utf8').trim();
    return OBJECT_ID.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
