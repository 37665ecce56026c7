import { acquireLock, describeLockOwner, LockTimeoutError, releaseLock, type LockHandle } from '../../infra/fs/lock.js';
import { RefusedError } from '../../core/errors.js';
import { ensureDirectory } from '../../infra/fs/ensure-directory.js';
import { workspacePaths } from '../../core/layout.js';
import type { RegistryEntry } from '../../core/schema/registry.js';

/**
 * Long-held, per-team leases (docs/design/invariants.md #7). `consumer`: whoever applies a team's inbox signals (`fed
 * actors run`, or `fed launch` when no actor consumer runs) — one at a time. `launch`: one `fed launch`
 * per team at a time. A lease is only ever broken when its holder's process is gone — never by age,
 * because a healthy holder may keep it for days.
 */
export type TeamLeaseKind = 'consumer' | 'launch';

export interface TeamLease {
  team: string;
  release: () => void;
}

const PURPOSE: Record<TeamLeaseKind, string> = { consumer: 'actor consumer', launch: 'launch' };

export function teamLeasePath(team: RegistryEntry, kind: TeamLeaseKind): string {
  const paths = workspacePaths(team.location);
  return kind === 'consumer' ? paths.consumerLease : paths.launchLease;
}

export async function acquireTeamLease(team: RegistryEntry, kind: TeamLeaseKind): Promise<TeamLease> {
  ensureDirectory(workspacePaths(team.location).state);
  let handle: LockHandle;
  try {
    handle = await acquireLock(teamLeasePath(team, kind), { staleMs: Number.POSITIVE_INFINITY, timeoutMs: 0 });
  } catch (error) {
    if (!(error instanceof LockTimeoutError)) throw error;
    throw new RefusedError(
      'TEAM_BUSY',
      `team "${team.domainId}" is already being run by another process (${describeLockOwner(error.owner)}); ` +
        `only one ${PURPOSE[kind]} per team at a time — stop the other one first`,
    );
  }
  return { team: team.domainId, release: () => releaseLock(handle) };
}

/** The lease if it is free now, or undefined when another process holds it. */
export async function tryAcquireTeamLease(team: RegistryEntry, kind: TeamLeaseKind): Promise<TeamLease | undefined> {
  try {
    return await acquireTeamLease(team, kind);
  } catch (error) {
    if (error instanceof RefusedError && error.code === 'TEAM_BUSY') return undefined;
    throw error;
  }
}
