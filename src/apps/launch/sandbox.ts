import { delimiter, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { FED_DIR } from '../../core/layout.js';

/**
 * The read-only sandbox of a deliverable team (docs/design/spec.md §2.7: the lead agent's tools are read-only): with
 * bubblewrap the agent sees the whole machine as it is, but read-only — the federation root (the codebase
 * and the federation's `.fed/` alike: registry, other teams' workspaces, meta's inbox, the skills,
 * `.gitignore`) and the system and fed's own installation: a write there fails inside the agent with
 * EROFS. Writable are the team's own workspace and, outside the root, the places an agent CLI keeps its
 * own state and scratch files (`machineMounts`). A worktree team's checkout is its codebase: it is
 * read-only too, except its own `.fed/` and its deliverable file. The agent's fed commands reach the
 * federation through the launcher's broker (agent-broker.ts).
 */
export interface SandboxPlan {
  root: string;
  /** The team's workspace: writable, unless it is a worktree (then only its `.fed/` and `writableFiles` are). */
  workspace: string;
  /** A worktree team's checkout (its workspace), when the team is placed in one. */
  worktree?: string;
  /** A file in the worktree the agent must be able to write (the deliverable). */
  writableFiles?: readonly string[];
  /** Outside the root: what stays writable, and what is read-only again inside it (machineMounts). */
  machine: MachineMounts;
}

export interface MachineMounts {
  /** Existing folders an agent CLI writes: its home (sessions, credentials refreshes) and the temp dirs. */
  writable: readonly string[];
  /**
   * Inside those, what processes outside the sandbox later run or read as configuration — fed's code cache
   * and installation, git's and the shells' start-up files — read-only again (when they exist).
   */
  protectedPaths: readonly string[];
}

/** Start-up files in a home that a later shell or git outside the sandbox would obey. */
const HOME_STARTUP_FILES = [
  '.gitconfig',
  '.config/git',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.ssh',
];

/**
 * The writable places outside the root and what is protected in them, for an agent run with `env`.
 * `codeCache` (created before the run, so the agent cannot create it with files of its own) and
 * `installation` (fed's package root) are protected wherever they are.
 */
export function machineMounts(
  env: NodeJS.ProcessEnv,
  protect: { codeCache?: string; installation: string },
): MachineMounts {
  const home = env.HOME && env.HOME !== '/' ? env.HOME : undefined;
  const temp = [env.TMPDIR, '/tmp', '/var/tmp'].filter((dir): dir is string => Boolean(dir));
  const writable = [...new Set([...(home ? [home] : []), ...temp])].filter(existsSync);
  return {
    writable,
    protectedPaths: [
      ...(protect.codeCache ? [protect.codeCache] : []),
      protect.installation,
      ...(home ? HOME_STARTUP_FILES.map((file) => join(home, file)) : []),
    ],
  };
}

/**
 * How the sandbox is built, whatever it mounts — what keeps an agent running as root in (Docker's default)
 * from undoing the mounts: no capabilities at all (no remount, unmount or mknod; bwrap also sets
 * no_new_privs, so no exec gives them back), a PID namespace of its own (it sees and signals only its own
 * processes, and everything in it is killed when the agent exits), killed if its parent — the watchdog, or
 * the launcher itself for an agent that ends with it — dies, and a session of its own (no terminal to push input into).
 */
const ISOLATION = ['--unshare-pid', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];

/**
 * Mounted over the machine's: a /proc of the sandbox's own processes (so no /proc/<pid>/root or /cwd of a
 * process outside leads back to a writable view of the codebase) and a minimal /dev (null, zero, random,
 * tty, a private pts…; no disk whose raw device root could write).
 */
const FRESH_PROC_AND_DEV = ['--dev', '/dev', '--proc', '/proc'];

/**
 * The bwrap programs a probe found able to sandbox: a `fed run` launching many teams probes once. Only a
 * success is kept — a probe that failed for a passing reason (its timeout on a loaded machine) must not
 * leave every later team of the process unsandboxed.
 */
const probed = new Set<string>();

/**
 * `bwrap` on PATH if it can actually sandbox here — in some containers it is installed but may not create
 * namespaces — or why not. Probed until it succeeds once in this process, for each bwrap found.
 */
export function findBubblewrap(env: NodeJS.ProcessEnv): { bwrap: string } | { missing: string } {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    if (probed.has(candidate)) return { bwrap: candidate };
    // Built the way the agent's sandbox is: a bwrap that cannot isolate it here counts as missing.
    const probe = spawnSync(candidate, [...ISOLATION, '--ro-bind', '/', '/', ...FRESH_PROC_AND_DEV, '--', 'true'], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    const found =
      probe.status === 0
        ? { bwrap: candidate }
        : {
            missing: `bubblewrap (${candidate}) cannot create a sandbox here: ${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()}`,
          };
    if ('bwrap' in found) probed.add(candidate);
    return found;
  }
  return { missing: 'bubblewrap (bwrap) is not installed (apt-get install bubblewrap)' };
}

/** The bwrap arguments that run a command in the sandbox (the command follows them). */
export function bubblewrapArgs(bwrap: string, plan: SandboxPlan): string[] {
  const readOnly = (path: string) => ['--ro-bind', path, path];
  const writable = (path: string) => ['--bind', path, path];
  return [
    bwrap,
    ...ISOLATION,
    ...readOnly('/'),
    ...FRESH_PROC_AND_DEV,
    ...plan.machine.writable.flatMap(writable),
    // Skipped when missing: a path that is not there cannot be a mount point.
    ...plan.machine.protectedPaths.flatMap((path) => ['--ro-bind-try', path, path]),
    // The root may lie in a writable place (a project in the home, a temp dir): mounted after them.
    ...readOnly(plan.root),
    ...(plan.worktree
      ? [...readOnly(plan.worktree), ...writable(join(plan.worktree, FED_DIR))]
      : writable(plan.workspace)),
    ...(plan.writableFiles ?? []).flatMap(writable),
    '--',
  ];
}
