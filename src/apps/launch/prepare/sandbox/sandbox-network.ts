import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../../../infra/package-info.js';
import { workspacePaths } from '../../../../core/layout.js';
import { writeFileAtomic } from '../../../../infra/fs/atomic-write.js';
import { LISTEN_PORTS_ENV, LISTENER_CHANNEL_FD } from '../../../../infra/process/listener-channel.js';
import { socketFilter } from './socket-filter.js';
import { SANDBOX_BROKER_PORT, SANDBOX_PROXY_PORT } from '../../../../core/schema/network-policy.js';

/** The descriptor bwrap reads the seccomp filter from. */
const FILTER_FD = 9;

const LISTENER = 'dist/src/apps/launch/supervise/network/sandbox-listener.js';

/**
 * bwrap's arguments for a sandbox with a network policy: a network namespace of its own (loopback only),
 * and the filter that keeps it to the sockets it needs (socket-filter.ts), read from the descriptor `filterLoader` opens.
 */
export const NETWORK_NAMESPACE = ['--unshare-net', '--seccomp', String(FILTER_FD)];

/** Put before bwrap: a shell that opens the filter file on the descriptor bwrap reads it from, and becomes bwrap. */
export function filterLoader(filterFile: string): string[] {
  return ['/bin/sh', '-c', `exec "$@" ${FILTER_FD}<"$0"`, filterFile];
}

/** Where a launch writes the filter before the sandbox starts: the team's launch folder, rewritten each time. */
export function filterFile(workspace: string): string {
  return join(workspacePaths(workspace).launch, 'socket-filter.bpf');
}

/**
 * The filter, written for a sandbox about to start (the agent of an earlier run may have changed the file);
 * `unixSockets`: the team's sandbox allows them (its setting's allowance).
 */
export function writeFilter(workspace: string, allow: { unixSockets: boolean }): void {
  writeFileAtomic(filterFile(workspace), socketFilter(process.arch, allow)!, { durable: false });
}

/** The ports the sandbox listens on: the proxy's, the broker's, then those forwarded to the machine's. */
function sandboxPorts(forwardedPorts: readonly number[]): string {
  return [SANDBOX_PROXY_PORT, SANDBOX_BROKER_PORT, ...forwardedPorts].join(' ');
}

/**
 * Put between bwrap's `--` and the agent's command: a shell that runs the listener (which hands the
 * proxy's socket to the launcher), then forgets the channel and becomes the agent — so the agent is the
 * sandbox's command as before, with no fed process beside it. A listener that fails ends the sandbox (125).
 */
export function listenerCommand(forwardedPorts: readonly number[]): string[] {
  const fd = LISTENER_CHANNEL_FD;
  const script = `"$1" "$2" ${sandboxPorts(forwardedPorts)} || exit 125; shift 2; unset NODE_CHANNEL_FD NODE_CHANNEL_SERIALIZATION_MODE; exec ${fd}>&-; exec "$@"`;
  return ['/bin/sh', '-c', script, 'fed-sandbox', process.execPath, join(packageRoot(), LISTENER)];
}

/**
 * Put before bwrap's `--` for the built-in agent, fed's own code, which keeps the channel and listens
 * itself (listenForLauncher) before it does anything else: no listener process is started for it.
 */
export function agentListensArgs(forwardedPorts: readonly number[]): string[] {
  return ['--setenv', LISTEN_PORTS_ENV, sandboxPorts(forwardedPorts)];
}

/** The bwrap programs found able to give a sandbox its own network namespace (probed once each). */
const probed = new Set<string>();

/** Why `bwrap` cannot give the sandbox a network namespace of its own here, or undefined when it can. */
export function networkNamespaceMissing(bwrap: string): string | undefined {
  if (probed.has(bwrap)) return undefined;
  const filter = socketFilter();
  if (!filter) return `fed knows no seccomp filter for this machine's architecture (${process.arch})`;
  // The filter on stdin here (the agent's is its prompt, hence the file).
  const probe = spawnSync(
    bwrap,
    [
      '--unshare-net',
      '--seccomp',
      '0',
      '--unshare-pid',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--',
      'true',
    ],
    { encoding: 'utf8', timeout: 10_000, input: filter },
  );
  if (probe.status === 0) {
    probed.add(bwrap);
    return undefined;
  }
  return `bubblewrap (${bwrap}) cannot give the sandbox a network of its own (--unshare-net, --seccomp): ${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()}`;
}
