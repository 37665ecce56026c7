import { join } from 'node:path';
import { workspacePaths } from '../../../../core/layout.js';
import { writeFileAtomic } from '../../../../infra/fs/atomic-write.js';
import { LISTEN_PORTS_ENV } from '../../../../infra/process/listener-channel.js';
import { socketFilter } from './socket-filter.js';
import { SANDBOX_BROKER_PORT, SANDBOX_PROXY_PORT } from '../../../../core/schema/network-policy.js';
import type { SandboxAllowance } from '../../../../core/schema/config.js';

/** The descriptor bwrap reads the seccomp filter from. */
const FILTER_FD = 9;

/**
 * bwrap's arguments for the filter every sandbox loads, which keeps it to the sockets it needs
 * (socket-filter.ts), read from the descriptor `filterLoader` opens; and with a network policy, a network
 * namespace of its own (loopback only): made by this sandbox (`UNSHARE_NET`, for the built-in agent, which
 * listens itself) or by the one the agent's watchdog runs in (`networkOfItsOwn`), which the sandbox then shares.
 */
export const SECCOMP_FILTER = ['--seccomp', String(FILTER_FD)];
export const UNSHARE_NET = ['--unshare-net'];

/**
 * Put before the agent's watchdog: a network namespace of its own (loopback only, which bwrap brings up),
 * and nothing else of the machine changed, in which the watchdog listens on the sandbox's ports and hands
 * them to the launcher before it starts the agent's sandbox in the same namespace (agent-watchdog.ts) — so
 * no process of its own is started to listen, and the agent's sandbox holds no fed process beside it. The
 * shell ignores the signals fed stops the agent's group with, and bwrap inherits that: the watchdog takes
 * them (it stops the agent gracefully), while bwrap, waiting for it, passes on its exit.
 */
export function networkOfItsOwn(bwrap: string): string[] {
  return ['/bin/sh', '-c', 'trap "" TERM INT HUP; exec "$@"', 'fed-network', bwrap, ...NETWORK_ONLY, '--'];
}

/** bwrap's arguments for a network namespace of its own with the machine otherwise as it is. */
export const NETWORK_ONLY = [...UNSHARE_NET, '--dev-bind', '/', '/'];

/** Put before bwrap: a shell that opens the filter file on the descriptor bwrap reads it from, and becomes bwrap. */
export function filterLoader(filterFile: string): string[] {
  return ['/bin/sh', '-c', `exec "$@" ${FILTER_FD}<"$0"`, filterFile];
}

/** Where a launch writes the filter before the sandbox starts: the team's launch folder, rewritten each time. */
export function filterFile(workspace: string): string {
  return join(workspacePaths(workspace).launch, 'socket-filter.bpf');
}

/**
 * The filter, written for a sandbox about to start (the agent of an earlier run may have changed the file),
 * with what the team's sandbox setting allows (`unix-sockets`); returns where, or undefined where fed knows
 * no filter for this machine's architecture.
 */
export function writeFilter(workspace: string, allows: readonly SandboxAllowance[]): string | undefined {
  const filter = socketFilter(process.arch, { unixSockets: allows.includes('unix-sockets') });
  if (!filter) return undefined;
  writeFileAtomic(filterFile(workspace), filter, { durable: false });
  return filterFile(workspace);
}

/** The ports the sandbox listens on: the proxy's, the broker's, then those forwarded to the machine's. */
export function sandboxPorts(forwardedPorts: readonly number[]): number[] {
  return [SANDBOX_PROXY_PORT, SANDBOX_BROKER_PORT, ...forwardedPorts];
}

/**
 * Put before bwrap's `--` for the built-in agent, fed's own code, which keeps the channel and listens
 * itself (listenForLauncher) before it does anything else: no listener process is started for it.
 */
export function agentListensArgs(forwardedPorts: readonly number[]): string[] {
  return ['--setenv', LISTEN_PORTS_ENV, sandboxPorts(forwardedPorts).join(' ')];
}
