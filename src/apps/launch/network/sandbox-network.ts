import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../../infra/package-info.js';
import { LISTENER_CHANNEL_FD } from './listener-channel.js';

/**
 * The proxy's port inside the sandbox: its network namespace is its own, with nothing else listening,
 * so a fixed port collides with nothing and the agent's environment can name it before it starts.
 */
export const SANDBOX_PROXY_PORT = 3128;

const LISTENER = 'dist/src/apps/launch/network/sandbox-listener.js';

/** bwrap's arguments for a sandbox with a network policy: a network namespace of its own (loopback only). */
export const NETWORK_NAMESPACE = ['--unshare-net'];

/**
 * Put between bwrap's `--` and the agent's command: a shell that runs the listener (which hands the
 * proxy's socket to the launcher), then forgets the channel and becomes the agent — so the agent is the
 * sandbox's command as before, with no fed process beside it. A listener that fails ends the sandbox (125).
 */
export function listenerCommand(): string[] {
  const fd = LISTENER_CHANNEL_FD;
  const script = `"$1" "$2" ${SANDBOX_PROXY_PORT} || exit 125; shift 2; unset NODE_CHANNEL_FD NODE_CHANNEL_SERIALIZATION_MODE; exec ${fd}>&-; exec "$@"`;
  return ['/bin/sh', '-c', script, 'fed-sandbox', process.execPath, join(packageRoot(), LISTENER)];
}

/** The agent's environment: every variable through which a CLI, curl, git or a runtime finds its proxy. */
export function proxyEnv(): Record<string, string> {
  const proxy = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
  const local = 'localhost,127.0.0.1,::1';
  return {
    HTTPS_PROXY: proxy,
    https_proxy: proxy,
    HTTP_PROXY: proxy,
    http_proxy: proxy,
    ALL_PROXY: proxy,
    all_proxy: proxy,
    NO_PROXY: local,
    no_proxy: local,
    // Node 24 and later: its fetch and http follow the variables above too.
    NODE_USE_ENV_PROXY: '1',
  };
}

/** The bwrap programs found able to give a sandbox its own network namespace (probed once each). */
const probed = new Set<string>();

/** Why `bwrap` cannot give the sandbox a network namespace of its own here, or undefined when it can. */
export function networkNamespaceMissing(bwrap: string): string | undefined {
  if (probed.has(bwrap)) return undefined;
  const probe = spawnSync(
    bwrap,
    [...NETWORK_NAMESPACE, '--unshare-pid', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', 'true'],
    { encoding: 'utf8', timeout: 10_000 },
  );
  if (probe.status === 0) {
    probed.add(bwrap);
    return undefined;
  }
  return `bubblewrap (${bwrap}) cannot give the sandbox a network of its own (--unshare-net): ${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()}`;
}
