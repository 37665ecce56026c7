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
  type LockReport,
} from '../../infra/fs/lock.js';

/**
 * One `fed serve` per federation and machine: two would each dispatch the same teams. The lease is held
 * for the server's whole life and broken only when its process is gone (a SIGKILLed server's next start
 * takes it over), never by age.
 */
export async function acquireServeLease(root: string, host: string): Promise<{ release(): void }> {
  const path = serveLeasePath(root, host);
  try {
    const handle = await acquireLock(path, { staleMs: Number.POSITIVE_INFINITY, timeoutMs: 0, makeFolder: true });
    return { release: () => releaseLock(handle) };
  } catch (error) {
    if (!(error instanceof LockTimeoutError)) throw error;
    throw new RefusedError(
      'SERVE_RUNNING',
      `fed serve already runs this federation on ${host} (${describeLockOwner(error.owner)}); ` +
        'one server per federation and machine — stop that one first (SIGTERM lets its agents finish)',
    );
  }
}

/** The servers that hold (or left) a lease on this federation, one per host name, as `fed doctor` reports them. */
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
