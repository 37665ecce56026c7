import { lstatSync, readdirSync, readFileSync, readlinkSync, rmdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
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
  removePlaceholders(placeholdersFile);
  const placeholders: string[] = [];
  const worktree = team.location;
  const writable = (path: string) =>
    [worktree, git.admin].some((top) => path === top || path.startsWith(`${top}${sep}`));
  /**
   * A path kept read-only: itself where it is there, else an empty read-only folder holding its place (at
   * the end of its links: a link to nothing could be written through) — none where that place is read-only anyway.
   */
  const keep = (path: string): SandboxMount[] => {
    if (present(path)) return [{ kind: 'read-only', path }];
    const at = linkEnd(path);
    if (!writable(at)) return [];
    placeholders.push(at);
    return [{ kind: 'empty', path: at }];
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
      const brought = await bringInTeamBranch(root, team);
      return brought?.kept ? [brought.kept] : [];
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
    { kind: 'read-only', path: repository.alternates, source: store.alternates },
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

/** Where `path`'s links lead (itself when it is no link), followed a bounded number of times. */
function linkEnd(path: string): string {
  let at = path;
  for (let hops = 0; hops < 40; hops++) {
    try {
      if (!lstatSync(at).isSymbolicLink()) return at;
      at = resolve(dirname(at), readlinkSync(at));
    } catch {
      return at;
    }
  }
  return at;
}
