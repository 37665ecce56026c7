import { lstatSync, readdirSync, readFileSync, readlinkSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { RefusedError } from '../../../../core/errors.js';
import type { RegistryEntry } from '../../../../core/schema/registry.js';
import { writeFileAtomic } from '../../../../infra/fs/atomic-write.js';
import { git as runGit, GitCommandError } from '../../../../engine/registry/git.js';
import {
  bringInTeamBranch,
  readyTeamGit,
  repositoryMountPoints,
  storePaths,
  type TeamGit,
} from '../../../../engine/registry/team-git-store.js';
import { commitIdentity } from './commit-identity.js';
import type { SandboxMount } from './sandbox.js';
import { WORKTREE_DENY_LIST } from './worktree-deny-list.js';

/**
 * What a coding team's agent sees of its worktree in the sandbox (issue 80): the worktree writable, but for
 * its deny list (worktree-deny-list.ts) and the `.git` files of its submodules; the worktree's own git
 * folder writable (its index, HEAD, logs), but for what points git elsewhere (`commondir`, `gitdir`), its
 * own config and its submodules' git folders; the repository's objects and refs read-only, with the team's
 * store mounted for its new objects and its branch's folder (team-git-store.ts). The rest of the repository
 * — its config, hooks, `info/`, other branches, `packed-refs` — is read-only with the root.
 */
export interface CodingWorktree {
  mounts: SandboxMount[];
  /** Who the agent's commits are by: your git identity, which its own home does not have (`GIT_AUTHOR_NAME`…). */
  env: Record<string, string>;
  /** Said at the launch: commits of an earlier run that could not be brought onto the branch. */
  warnings: string[];
  /** Once the agent is gone: the places fed held removed, its commits brought into the repository; what to say. */
  afterRun(): Promise<string[]>;
}

/** The git folders of the worktree's own, read-only inside its writable one: each points git elsewhere or configures it. */
const ADMIN_READ_ONLY = ['commondir', 'gitdir', 'config.worktree'];

export async function codingWorktree(root: string, team: RegistryEntry): Promise<CodingWorktree> {
  // Side by side: each is a git the launch waits for.
  const [{ git, warning }, identity] = await Promise.all([readyTeamGit(root, team), commitIdentity(root, team)]);
  const placeholdersFile = join(git.store, 'placeholders');
  // Yours, when there before the run: left alone after it.
  const inProgressBefore = inProgress(git);
  removePlaceholders(placeholdersFile);
  const placeholders: string[] = [];
  const worktree = team.location;
  const writable = (path: string) =>
    [worktree, git.admin].some((top) => path === top || path.startsWith(`${top}${sep}`));
  /**
   * A path kept read-only: itself where it is there, else an empty read-only folder holding its place —
   * none where that place is read-only anyway. A link there is refused: a mount lands at its end, and the
   * agent could swap the link itself for a file or folder of its own.
   */
  const keep = (path: string): SandboxMount[] => {
    refuseLink(team, path);
    if (present(path)) return [{ kind: 'read-only', path }];
    if (!writable(path)) return [];
    placeholders.push(path);
    return [{ kind: 'empty', path }];
  };
  const mounts: SandboxMount[] = [
    { kind: 'writable', path: worktree },
    ...WORKTREE_DENY_LIST.flatMap(({ path }) => keep(join(worktree, path))),
    ...submoduleGitFiles(worktree).map((path): SandboxMount => ({ kind: 'read-only', path })),
    ...gitMounts(git, keep),
  ];
  // Listed before the run: a launcher killed during it leaves them, and the next launch removes them.
  writeFileAtomic(placeholdersFile, placeholders.map((path) => `${path}\n`).join(''), { durable: false });
  return {
    mounts,
    env: identity,
    warnings: warning ? [warning] : [],
    afterRun: async () => {
      removePlaceholders(placeholdersFile);
      const warnings = tidyWorktreeGit(team, git, inProgressBefore);
      const warning = await bringInTeamBranch(root, team);
      return warning ? [...warnings, warning] : warnings;
    },
  };
}

/** The git folders as the agent sees them: the worktree's own writable but for what points git elsewhere; the store's over the repository's. */
function gitMounts(git: TeamGit, keep: (path: string) => SandboxMount[]): SandboxMount[] {
  const store = storePaths(git.store, git.branch);
  const repository = repositoryMountPoints(git.common);
  return [
    { kind: 'writable', path: git.admin },
    ...ADMIN_READ_ONLY.map((name): SandboxMount => ({ kind: 'read-only', path: join(git.admin, name) })),
    // Submodules' git folders: their config and hooks are git's to obey. Initialised before the run, or not at all.
    ...keep(join(git.admin, 'modules')),
    // New objects to the team's store; the repository's read through its alternates, shown read-only.
    { kind: 'writable', path: repository.objects, source: store.objects },
    // The store's `info/` whole (its alternates): a read-only file alone could be renamed away with its folder.
    { kind: 'read-only', path: repository.objectsInfo, source: store.objectsInfo },
    { kind: 'read-only', path: store.repoObjects, source: repository.objects },
    // The team's branch and its reflog, in folders of its own: other branches stay read-only.
    { kind: 'writable', path: repository.refs, source: store.refs },
    { kind: 'writable', path: repository.logs, source: store.logs },
  ];
}

/**
 * The `.git` files of the worktree's submodules (as its `.gitmodules` lists them, read as data): each points
 * git at the submodule's git folder, and pointed elsewhere would have your git obey another's hooks.
 */
function submoduleGitFiles(worktree: string): string[] {
  if (!present(join(worktree, '.gitmodules'))) return [];
  let listed: string;
  try {
    listed = runGit(worktree, ['config', '--file', '.gitmodules', '--get-regexp', '^submodule\\..*\\.path$']);
  } catch (error) {
    // No .gitmodules, or no submodule in it.
    if (error instanceof GitCommandError && !error.killedBy) return [];
    throw error;
  }
  return listed
    .split('\n')
    .map((line) => line.slice(line.indexOf(' ') + 1))
    .map((path) => resolve(worktree, path, '.git'))
    .filter((path) => !relative(worktree, path).startsWith(`..${sep}`) && present(path));
}

/** What a git operation left in progress keeps in the worktree's git folder: a rebase's todo runs its `exec` lines when continued. */
const IN_PROGRESS = ['rebase-merge', 'rebase-apply', 'sequencer'];

/** The git operations in progress in the worktree (IN_PROGRESS). */
function inProgress(git: TeamGit): string[] {
  return IN_PROGRESS.filter((name) => present(join(git.admin, name)));
}

/**
 * What the agent left in its worktree's own git folder that your git would act on later, set right: its
 * HEAD back on the team's branch (detached, or on another branch, your next commit there would not be the
 * team's), and an operation in progress removed. Each said; the worktree's files stay as the agent left them.
 */
function tidyWorktreeGit(team: RegistryEntry, git: TeamGit, before: readonly string[]): string[] {
  const warnings: string[] = [];
  const head = join(git.admin, 'HEAD');
  const onBranch = `ref: refs/heads/${git.branch}`;
  let found: string;
  try {
    found = lstatSync(head).isFile() ? readFileSync(head, 'utf8').trim() : 'no file';
  } catch {
    found = 'no file';
  }
  if (found !== onBranch) {
    writeFileAtomic(head, `${onBranch}\n`, { durable: false });
    warnings.push(
      `team "${team.domainId}"'s agent left its worktree's HEAD at ${found.slice(0, 80)}: fed set it back to ${git.branch} (the worktree's files are as the agent left them: git status there shows what differs)`,
    );
  }
  const left = inProgress(git).filter((name) => !before.includes(name));
  for (const name of left) rmSync(join(git.admin, name), { recursive: true, force: true });
  if (left.length)
    warnings.push(
      `team "${team.domainId}"'s agent left a git operation in progress in its worktree (${left.join(', ')}): fed removed it, as continuing it would run what the agent wrote there`,
    );
  return warnings;
}

/** Remove the places fed held with empty folders in an earlier run, those still empty (listed in `file`). */
function removePlaceholders(file: string): void {
  let listed: string[];
  try {
    listed = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return;
  }
  for (const path of listed) {
    try {
      if (lstatSync(path).isDirectory() && readdirSync(path).length === 0) rmdirSync(path);
    } catch {
      // Gone already, or in use: left as it is.
    }
  }
}

/** Something is at `path`, its links followed. */
function present(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A path the sandbox keeps read-only in a writable folder must be no link (keep). */
function refuseLink(team: RegistryEntry, path: string): void {
  let target: string;
  try {
    target = readlinkSync(path);
  } catch {
    // No link (or nothing there).
    return;
  }
  throw new RefusedError(
    'WORKSPACE_SYMLINK',
    `team "${team.domainId}"'s worktree has ${path} as a link (to ${target}), which its sandbox must keep read-only: a link cannot be, as its agent could replace it with its own; make it a real file or folder (or remove it), then launch again`,
  );
}
