import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { federationPaths, serveLeasePath } from '../../core/layout.js';
import { RefusedError } from '../../core/errors.js';
import {
  acquireLock,
  describeLockOwner,
  inspectLock,
  LockTimeoutError,
  releaseLock,
  type LockOwner,
  type LockReport,
} from '../../infra/fs/lock.js';

/**
 * One `fed serve` per federation and machine: two would each dispatch the same teams. One lease per
 * federation root, whatever `--host-name` each server gives: on files there is one host, and on a shared
 * backend two host names of one root still serve the same workspaces. The lease is held for the server's
 * whole life and broken only when its process is gone (a SIGKILLed server's next start takes it over),
 * never by age. It records the host name the server serves as (`host`), which names it to others.
 */
export async function acquireServeLease(root: string, host: string): Promise<{ release(): void }> {
  const path = serveLeasePath(root);
  try {
    const handle = await acquireLock(path, {
      staleMs: Number.POSITIVE_INFINITY,
      timeoutMs: 0,
      makeFolder: true,
      name: host,
    });
    return { release: () => releaseLock(handle) };
  } catch (error) {
    if (!(error instanceof LockTimeoutError)) throw error;
    const owner = error.owner && { ...error.owner, host: serverHost(error.owner) };
    throw new RefusedError(
      'SERVE_RUNNING',
      `fed serve already runs this federation on this machine (${describeLockOwner(owner)}); ` +
        'one server per federation and machine, whatever its --host-name — stop that one first (SIGTERM lets its agents finish)',
    );
  }
}

/**
 * The host name a server serves as, from its lease: the one it recorded, else (a lease of a fed that did
 * not record it) its machine's.
 */
export function serverHost(owner: LockOwner): string {
  return owner.name ?? owner.host;
}

/**
 * The servers that hold (or left) a lease on this federation, as `fed doctor` reports them: the one lease,
 * and those of fed versions that kept one per host name.
 */
export function serveLeases(root: string): LockReport[] {
  let names: string[];
  try {
    names = readdirSync(federationPaths(root).serve);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith('.lock'))
    .map((name) => inspectLock(join(federationPaths(root).serve, name), { staleMs: Number.POSITIVE_INFINITY }))
    .filter((report): report is LockReport => report !== undefined);
}
