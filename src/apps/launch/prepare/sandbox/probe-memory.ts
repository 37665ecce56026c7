import { mkdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { release } from 'node:os';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../../../../infra/fs/atomic-write.js';
import { codeCacheDir } from '../../../../infra/code-cache-dir.js';
import { packageVersion } from '../../../../infra/package-info.js';

/**
 * The sandbox probes that succeeded (sandbox.ts: findBubblewrap, networkNamespaceMissing), remembered so a
 * launch does not run bwrap twice before its agent: in this process, and across processes in fed's code
 * cache folder — a folder of fed's own that every sandbox keeps read-only, so no agent can write it.
 *
 * A success is kept under what decides it: the kind of probe, fed's version (which makes the probe), the
 * bwrap program (its path and the file's identity), the user and the user namespace it runs in (another
 * container's may allow none), the kernel and the settings that allow user namespaces. A failure is never kept (one
 * that failed for a passing reason, a timeout on a loaded machine, must not leave later teams unsandboxed);
 * and a success that no longer holds only makes the sandbox fail at its start, said in the agent's log.
 */
const known = new Set<string>();

/** The settings of the kernel a sandbox's namespaces depend on, where this kernel has them. */
const NAMESPACE_SETTINGS = [
  '/proc/sys/kernel/unprivileged_userns_clone',
  '/proc/sys/user/max_user_namespaces',
  '/proc/sys/user/max_net_namespaces',
  '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
];

/** How many successes the file keeps (the latest): a machine has a bwrap or two, tests make many. */
const KEPT = 32;

/** What a probe of `kind` with `bwrap` is remembered under, or undefined when the program cannot be looked at. */
function keyOf(kind: string, bwrap: string): string | undefined {
  try {
    const { dev, ino, size, mtimeMs } = statSync(bwrap);
    const settings = NAMESPACE_SETTINGS.map((file) => {
      try {
        return readFileSync(file, 'utf8').trim();
      } catch {
        return '-';
      }
    });
    const namespace = readlinkSync('/proc/self/ns/user');
    return [
      kind,
      packageVersion(),
      bwrap,
      `${dev}:${ino}:${size}:${mtimeMs}`,
      process.getuid?.(),
      namespace,
      release(),
      ...settings,
    ].join(' ');
  } catch {
    return undefined;
  }
}

const memoryFile = (env: NodeJS.ProcessEnv): string | undefined => {
  const dir = codeCacheDir(env);
  return dir && join(dir, 'sandbox-probes');
};

function remembered(env: NodeJS.ProcessEnv): string[] {
  const file = memoryFile(env);
  if (!file) return [];
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * Whether a probe of `kind` with `bwrap` succeeded before — here or in an earlier process — or else whether
 * `probe` succeeds now (remembered if it does). `probe` returns why it failed, or undefined on success.
 */
export function probedOnce(
  env: NodeJS.ProcessEnv,
  kind: string,
  bwrap: string,
  probe: () => string | undefined,
): string | undefined {
  const key = keyOf(kind, bwrap) ?? `${kind} ${bwrap}`;
  if (known.has(key)) return undefined;
  const kept = remembered(env);
  if (kept.includes(key)) {
    known.add(key);
    return undefined;
  }
  const failure = probe();
  if (failure !== undefined) return failure;
  known.add(key);
  const file = memoryFile(env);
  if (file) {
    try {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      writeFileAtomic(file, [...kept, key].slice(-KEPT).join('\n') + '\n', { durable: false });
    } catch {
      // No cache folder to write (read-only, full): the next process probes again.
    }
  }
  return undefined;
}
