import { acquireLock, LockTimeoutError, releaseLock, type LockHandle } from '../fs/lock.js';
import { RefusedError } from '../errors.js';
import { ensureDirectory } from '../fs/ensure-directory.js';
import { workspacePaths } from '../layout.js';
import type { RegistryEntry } from '../schema/registry.js';

/**
 * One writer per team actor (invariant 7): whoever consumes a team's inbox (`fed actors run`, `fed
 * launch`) holds its lease for as long as it runs. A lease is only ever broken when its holder's process
 * is gone — never by age, because a healthy consumer may hold it for days.
 */
export interface ConsumerLease {
  team: string;
  release: () => void;
}

export async function acquireConsumerLease(team: RegistryEntry, purpose: string): Promise<ConsumerLease> {
  const paths = workspacePaths(team.location);
  ensureDirectory(paths.state);
  let handle: LockHandle;
  try {
    handle = await acquireLock(paths.consumerLease, { staleMs: Number.POSITIVE_INFINITY, timeoutMs: 0 });
  } catch (error) {
    if (!(error instanceof LockTimeoutError)) throw error;
    throw new RefusedError(
      'TEAM_BUSY',
      `team "${team.domainId}" is already being run by another process (${error.message.replace(/^.*held by /, '')}); ` +
        `only one ${purpose} per team at a time — stop the other one first`,
    );
  }
  return { team: team.domainId, release: () => releaseLock(handle) };
}
