import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { FED_DIR } from '../../../../core/layout.js';
import { agentListensArgs, filterLoader, listenerCommand, NETWORK_NAMESPACE } from './sandbox-network.js';
import { findExecutable, leftOutReason } from '../../../../infra/process/find-executable.js';
import { agentHomeArgs, type AgentHome } from './agent-home.js';

/**
 * The read-only sandbox of a deliverable team (docs/design/spec.md §2.7: the lead agent's tools are read-only): with
 * bubblewrap the agent sees the whole machine as it is, but read-only — the federation root (the codebase
 * and the federation's `.fed/` alike: registry, other teams' workspaces, meta's inbox, the skills,
 * `.gitignore`) and the system and fed's own installation: a write there fails inside the agent with
 * EROFS. Writable are the team's own workspace, the agent's own home (agent-home.ts: the user's home is
 * read-only) and temp dirs of the sandbox's own (`machineMounts`). A worktree team's checkout is its codebase: it is
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
  /** Outside the root: the private temp dirs, and what is shown read-only again inside them (machineMounts). */
  machine: MachineMounts;
  /**
   * A network policy applies: a network namespace and a seccomp filter, the listener before the command,
   * which also listens on the loopback ports forwarded to the machine's (supervise/network/) — or, when
   * `agentListens` (the built-in agent), the command itself listens first.
   */
  network?: { filterFile: string; forwardedPorts: readonly number[]; agentListens: boolean };
  /** The agent's own home (agent-home.ts): its `$HOME`, writable, with the user's credential files read-only. */
  home?: AgentHome;
  /**
   * The agent's program: shown again read-only when a private temp dir would hide it (`--agent
   * ./run-agent.sh` from /tmp/x); anywhere else the machine's read-only view has it already.
   */
  program?: string;
}

export interface MachineMounts {
  /**
   * The temp dirs, each a fresh empty one of the sandbox's own: what the agent leaves there goes with it,
   * and nothing outside ever finds (or runs) it.
   */
  privateTemp: readonly string[];
  /**
   * What those would hide and the agent needs to run — fed's installation and code cache, node — shown
   * again read-only (when they exist).
   */
  protectedPaths: readonly string[];
}

/**
 * The temp dirs made private in the sandbox for an agent run with `env`, and what is shown in them again.
 * Nothing of the user's home is writable: the agent's `$HOME` is its own (agent-home.ts).
 * `codeCache` (created before the run) and `installation` (fed's package root) are shown wherever they are.
 */
export function machineMounts(
  env: NodeJS.ProcessEnv,
  protect: { codeCache?: string; installation: string },
): MachineMounts {
  const temp = [env.TMPDIR, '/tmp', '/var/tmp'].filter((dir): dir is string => Boolean(dir));
  return {
    privateTemp: [...new Set(temp)].filter(existsSync),
    protectedPaths: [...(protect.codeCache ? [protect.codeCache] : []), protect.installation, process.execPath],
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
 * namespaces — or why not. Never one a sandboxed agent could have planted (find-executable.ts: a planted
 * bwrap would run every later agent with no isolation at all). Probed until it succeeds once in this
 * process, for each bwrap found.
 */
export function findBubblewrap(
  env: NodeJS.ProcessEnv,
  writable?: readonly string[],
): { bwrap: string } | { missing: string } {
  const found = findExecutable('bwrap', env, { writable });
  const candidate = found.path;
  if (candidate === undefined)
    return { missing: `bubblewrap (bwrap) is not installed (apt-get install bubblewrap)${leftOutReason(found)}` };
  if (probed.has(candidate)) return { bwrap: candidate };
  // Built the way the agent's sandbox is: a bwrap that cannot isolate it here counts as missing.
  const probe = spawnSync(candidate, [...ISOLATION, '--ro-bind', '/', '/', ...FRESH_PROC_AND_DEV, '--', 'true'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (probe.status !== 0)
    return {
      missing: `bubblewrap (${candidate}) cannot create a sandbox here: ${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()}`,
    };
  probed.add(candidate);
  return { bwrap: candidate };
}

/** The agent's program, when it lies in a temp dir the sandbox makes private. */
function hiddenProgram(plan: SandboxPlan): string[] {
  const { program } = plan;
  if (!program) return [];
  return plan.machine.privateTemp.some((temp) => program.startsWith(`${temp}/`)) ? [program] : [];
}

/**
 * The sandbox (bwrap and its arguments) put before the agent's command, for its program: shown in the
 * sandbox wherever it is. `builtIn`: the launcher runs it as fed's own built-in agent (builtin-agent.ts).
 */
export type SandboxWrapper = (program: string, agent: { builtIn: boolean }) => string[];

/** The bwrap arguments that run a command in the sandbox (the command follows them). */
export function bubblewrapArgs(bwrap: string, plan: SandboxPlan): string[] {
  const readOnly = (path: string) => ['--ro-bind', path, path];
  const writable = (path: string) => ['--bind', path, path];
  return [
    ...(plan.network ? filterLoader(plan.network.filterFile) : []),
    bwrap,
    ...ISOLATION,
    ...readOnly('/'),
    ...FRESH_PROC_AND_DEV,
    ...plan.machine.privateTemp.flatMap((path) => ['--tmpfs', path]),
    // Skipped when missing: a path that is not there cannot be a mount point.
    ...[...plan.machine.protectedPaths, ...hiddenProgram(plan)].flatMap((path) => ['--ro-bind-try', path, path]),
    // The root may lie in a temp dir, which its private one would hide: mounted after them.
    ...readOnly(plan.root),
    ...(plan.worktree
      ? [...readOnly(plan.worktree), ...writable(join(plan.worktree, FED_DIR))]
      : writable(plan.workspace)),
    ...(plan.writableFiles ?? []).flatMap(writable),
    ...(plan.network ? NETWORK_NAMESPACE : []),
    ...(plan.network?.agentListens ? agentListensArgs(plan.network.forwardedPorts) : []),
    ...(plan.home ? agentHomeArgs(plan.home) : []),
    '--',
    ...(plan.network && !plan.network.agentListens ? listenerCommand(plan.network.forwardedPorts) : []),
  ];
}
