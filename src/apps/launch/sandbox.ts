import { delimiter, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { FED_DIR } from '../../core/layout.js';

/**
 * The read-only sandbox of a deliverable team (docs/design/spec.md §2.7: the lead agent's tools are read-only): with
 * bubblewrap the agent sees the whole machine as it is, except that the federation root is mounted
 * read-only — the codebase and the federation's `.fed/` alike (registry, other teams' workspaces, meta's
 * inbox, the skills, `.gitignore`): a write there fails inside the agent with EROFS. Only the team's own
 * workspace is writable, and temp dirs and everything outside the root. A worktree team's checkout is
 * its codebase: it is read-only too, except its own `.fed/` and its deliverable file. The agent's fed
 * commands reach the federation through the launcher's broker (agent-broker.ts).
 */
export interface SandboxPlan {
  root: string;
  /** The team's workspace: writable, unless it is a worktree (then only its `.fed/` and `writableFiles` are). */
  workspace: string;
  /** A worktree team's checkout (its workspace), when the team is placed in one. */
  worktree?: string;
  /** A file in the worktree the agent must be able to write (the deliverable). */
  writableFiles?: readonly string[];
}

/**
 * How the sandbox is built, whatever it mounts — what keeps an agent running as root in (Docker's default)
 * from undoing the mounts: no capabilities at all (no remount, unmount or mknod; bwrap also sets
 * no_new_privs, so no exec gives them back), a PID namespace of its own (it sees and signals only its own
 * processes, and everything in it is killed when the agent exits), killed if the supervising watchdog dies,
 * and a session of its own (no terminal to push input into).
 */
const ISOLATION = ['--unshare-pid', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];

/**
 * Mounted over the machine's: a /proc of the sandbox's own processes (so no /proc/<pid>/root or /cwd of a
 * process outside leads back to a writable view of the codebase) and a minimal /dev (null, zero, random,
 * tty, a private pts…; no disk whose raw device root could write).
 */
const FRESH_PROC_AND_DEV = ['--dev', '/dev', '--proc', '/proc'];

/**
 * `bwrap` on PATH if it can actually sandbox here — in some containers it is installed but may not create
 * namespaces — or why not.
 */
export function findBubblewrap(env: NodeJS.ProcessEnv): { bwrap: string } | { missing: string } {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    // Built the way the agent's sandbox is: a bwrap that cannot isolate it here counts as missing.
    const probe = spawnSync(candidate, [...ISOLATION, '--bind', '/', '/', ...FRESH_PROC_AND_DEV, '--', 'true'], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    if (probe.status === 0) return { bwrap: candidate };
    return {
      missing: `bubblewrap (${candidate}) cannot create a sandbox here: ${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()}`,
    };
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
    '--bind',
    '/',
    '/',
    ...FRESH_PROC_AND_DEV,
    ...readOnly(plan.root),
    ...(plan.worktree
      ? [...readOnly(plan.worktree), ...writable(join(plan.worktree, FED_DIR))]
      : writable(plan.workspace)),
    ...(plan.writableFiles ?? []).flatMap(writable),
    '--',
  ];
}
