import { dirname, sep } from 'node:path';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { agentListensArgs, filterLoader, NETWORK_ONLY, SECCOMP_FILTER, UNSHARE_NET } from './sandbox-network.js';
import { probedOnce } from './probe-memory.js';
import { socketFilter } from './socket-filter.js';
import { findExecutable, leftOutReason } from '../../../../infra/process/find-executable.js';
import { agentHomeArgs, type AgentHome } from './agent-home.js';

/**
 * The sandbox a team's agent runs in (team-sandbox.ts decides it): with bubblewrap the agent sees the whole
 * machine as it is, but read-only — the federation root (the codebase and the federation's `.fed/` alike:
 * registry, other teams' workspaces, meta's inbox, the skills, `.gitignore`) and the system and fed's own
 * installation: a write there fails inside the agent with EROFS — but for the user's credential stores,
 * which it cannot read at all (credential-stores.ts). Writable are what the team's workspace mounts say
 * (a study team's folder or deliverable; a coding team's worktree and its branch, but for what git and
 * your tools obey: coding-worktree.ts), the agent's own home (agent-home.ts: the user's home is read-only)
 * and temp dirs of the sandbox's own (`machineMounts`). The agent's fed commands reach the federation
 * through the launcher's broker (agent-broker.ts).
 */
export interface SandboxPlan {
  root: string;
  /**
   * What the agent must not read: the user's credential stores and `agent.denyRead`, mounted over
   * (hideMounts) — outside the root before everything else, inside it after the root and the workspace.
   */
  hidden: HiddenMounts;
  /** The team's workspace, after the root: what the agent writes in it, and what stays read-only there. */
  workspace: readonly SandboxMount[];
  /** Outside the root: the private temp dirs, and what is shown read-only again inside them (machineMounts). */
  machine: MachineMounts;
  /**
   * The seccomp filter every sandbox loads (socket-filter.ts: no Unix socket, no other family but the
   * network's), read from the file the launch wrote; none only where fed knows no filter for the machine.
   */
  filterFile?: string;
  /**
   * A network policy applies: a network namespace of its own — the one the agent's watchdog listens in
   * (the sandbox's ports and those forwarded to the machine's: supervise/network/), or, when
   * `agentListens` (the built-in agent), the sandbox's, where the command itself listens first.
   */
  network?: { forwardedPorts: readonly number[]; agentListens: boolean };
  /** The agent's own home (agent-home.ts): its `$HOME`, writable, with the user's credential files read-only. */
  home?: AgentHome;
  /** More environment the workspace gives the agent (a coding team's commit identity). */
  env?: Readonly<Record<string, string>>;
  /**
   * What of the agent's program a private temp dir would hide, shown again read-only (shownProgram): its
   * folder or package (`--agent ./run-agent.sh` from /tmp/x, a CLI installed with `npm i --prefix /tmp/x`).
   */
  program?: readonly string[];
}

/**
 * One mount of a plan, over what bubblewrap shows at `path` so far (a later mount at the same place or
 * inside it wins):
 * - `writable` / `read-only`: `source` (default: `path` itself, as the machine has it) bound at `path`;
 * - `empty`: an empty folder no one can write (a tmpfs, remounted read-only) — hides a folder, or holds the
 *   place of one that does not exist yet so it cannot be made;
 * - `unreadable`: a file that cannot be opened (the null device, on a mount without devices).
 */
export type SandboxMount =
  { kind: 'writable' | 'read-only'; path: string; source?: string } | { kind: 'empty' | 'unreadable'; path: string };

/** The mounts that hide what the agent must not read, by where they lie (the root shown again would show them). */
export interface HiddenMounts {
  outsideRoot: readonly SandboxMount[];
  inRoot: readonly SandboxMount[];
}

/** The bwrap arguments of each mount, in order. */
function mountArgs(mounts: readonly SandboxMount[]): string[] {
  return mounts.flatMap((mount) => {
    switch (mount.kind) {
      case 'writable':
        return ['--bind', mount.source ?? mount.path, mount.path];
      case 'read-only':
        return ['--ro-bind', mount.source ?? mount.path, mount.path];
      case 'empty':
        return ['--tmpfs', mount.path, '--remount-ro', mount.path];
      case 'unreadable':
        return ['--ro-bind', '/dev/null', mount.path];
    }
  });
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
 * `bwrap` on PATH if it can actually sandbox here — in some containers it is installed but may not create
 * namespaces — or why not. Never one a sandboxed agent could have planted (find-executable.ts: a planted
 * bwrap would run every later agent with no isolation at all). Probed, built the way the agent's sandbox
 * is, until it succeeds once (probe-memory.ts: remembered across processes too).
 */
export function findBubblewrap(
  env: NodeJS.ProcessEnv,
  writable?: readonly string[],
): { bwrap: string } | { missing: string } {
  const found = findExecutable('bwrap', env, { writable });
  const candidate = found.path;
  if (candidate === undefined)
    return { missing: `bubblewrap (bwrap) is not installed (apt-get install bubblewrap)${leftOutReason(found)}` };
  const failed = probedOnce(env, 'sandbox', candidate, () =>
    probeFailure(
      spawnSync(candidate, [...ISOLATION, '--ro-bind', '/', '/', ...FRESH_PROC_AND_DEV, '--', 'true'], PROBE),
    ),
  );
  return failed === undefined
    ? { bwrap: candidate }
    : { missing: `bubblewrap (${candidate}) cannot create a sandbox here: ${failed}` };
}

/**
 * Why `bwrap` cannot give a sandbox a network of its own here, or undefined when it can: probed as the
 * agent's runs are made — a network namespace with nothing else changed (sandbox-network.ts:
 * networkOfItsOwn), the sandbox inside it with the seccomp filter — until it succeeds once
 * (probe-memory.ts: remembered across processes too).
 */
export function networkNamespaceMissing(bwrap: string, env: NodeJS.ProcessEnv): string | undefined {
  const filter = socketFilter();
  if (!filter) return `fed knows no seccomp filter for this machine's architecture (${process.arch})`;
  const sandbox = [...ISOLATION, '--ro-bind', '/', '/', ...FRESH_PROC_AND_DEV, '--seccomp', '0', '--', 'true'];
  const failed = probedOnce(env, 'network', bwrap, () =>
    // The filter on stdin here (the agent's is its prompt, hence the file).
    probeFailure(spawnSync(bwrap, [...NETWORK_ONLY, '--', bwrap, ...sandbox], { ...PROBE, input: filter })),
  );
  return failed === undefined
    ? undefined
    : `bubblewrap (${bwrap}) cannot give the sandbox a network of its own (--unshare-net, --seccomp): ${failed}`;
}

const PROBE = { encoding: 'utf8', timeout: 10_000 } as const;

/** Why a probe failed, in bwrap's words, or undefined when it succeeded. */
function probeFailure(probe: SpawnSyncReturns<string>): string | undefined {
  return probe.status === 0 ? undefined : (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim();
}

/**
 * What of the agent's program must be shown again read-only in the sandbox, when it lies in a temp dir the
 * sandbox makes private: its folder — a script sources what lies beside it (`./common.sh`) — or, for a
 * program inside a `node_modules` tree (`npm i --prefix /tmp/x`, its bin a link into its package), the
 * folder that holds that tree, whose packages it loads. A program right in a temp dir itself keeps only its
 * own file (the temp dir must stay private): `alone` then names it, for the launch to say so.
 */
export function shownProgram(program: string, privateTemp: readonly string[]): { paths: string[]; alone?: string } {
  const inTemp = (path: string) => privateTemp.some((temp) => path.startsWith(`${temp}/`));
  if (!inTemp(program)) return { paths: [] };
  let real = program;
  try {
    real = realpathSync(program);
  } catch {
    // Not there (yet): shown as named.
  }
  const folders = [...new Set([program, real].filter(inTemp).map(packageFolder))];
  const temp = folders.find((folder) => privateTemp.includes(folder));
  if (temp !== undefined) return { paths: [program], alone: temp };
  return { paths: folders };
}

/** The folder to show for a program: the holder of the first `node_modules` on its path, else its own folder. */
function packageFolder(program: string): string {
  const at = program.indexOf(`${sep}node_modules${sep}`);
  return at > 0 ? program.slice(0, at) : dirname(program);
}

/**
 * The sandbox put before the agent's program, for that program (shown in the sandbox wherever it is):
 * `argv`, bwrap and its arguments — and with a network policy, where the agent's watchdog listens:
 * `network` (the watchdog runs after `outer`, in a network namespace of its own which the sandbox shares,
 * and listens on `ports` there: sandbox-network.ts, networkOfItsOwn). `builtIn`: the launcher runs it as
 * fed's own built-in agent (builtin-agent.ts), which listens itself.
 */
export type SandboxWrapper = (
  program: string,
  agent: { builtIn: boolean },
) => { argv: string[]; network?: { outer: readonly string[]; ports: readonly number[] } };

/**
 * The bwrap arguments that run a command in the sandbox (the command follows them). With a network policy
 * the sandbox's network namespace is its own where the agent listens itself (`agentListens`), else the one
 * its watchdog runs in (sandbox-network.ts: networkOfItsOwn).
 */
export function bubblewrapArgs(bwrap: string, plan: SandboxPlan): string[] {
  return [
    ...(plan.filterFile ? filterLoader(plan.filterFile) : []),
    bwrap,
    ...ISOLATION,
    '--ro-bind',
    '/',
    '/',
    ...FRESH_PROC_AND_DEV,
    // Before the temp dirs and the root: a credential store in one is hidden, whatever is shown again.
    ...mountArgs(plan.hidden.outsideRoot),
    ...plan.machine.privateTemp.flatMap((path) => ['--tmpfs', path]),
    // Skipped when missing: a path that is not there cannot be a mount point.
    ...[...plan.machine.protectedPaths, ...(plan.program ?? [])].flatMap((path) => ['--ro-bind-try', path, path]),
    // The root may lie in a temp dir, which its private one would hide: mounted after them.
    '--ro-bind',
    plan.root,
    plan.root,
    ...mountArgs(plan.workspace),
    // What is hidden in the root (a codebase's `.env`): after it, or the root would show it again.
    ...mountArgs(plan.hidden.inRoot),
    ...(plan.network?.agentListens ? UNSHARE_NET : []),
    ...(plan.filterFile ? SECCOMP_FILTER : []),
    ...(plan.network?.agentListens ? agentListensArgs(plan.network.forwardedPorts) : []),
    ...(plan.home ? agentHomeArgs(plan.home) : []),
    ...Object.entries(plan.env ?? {}).flatMap(([name, value]) => ['--setenv', name, value]),
    '--',
  ];
}
