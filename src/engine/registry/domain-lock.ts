import { RefusedError } from '../../core/errors.js';
import { federationPaths, onboardingPaths } from '../../core/layout.js';
import type { WriteOptions } from '../../infra/fs/atomic-write.js';
import { acquireLock, describeLockOwner, LockTimeoutError, type LockHandle } from '../../infra/fs/lock.js';
import type { Federation } from '../context.js';

/**
 * Take the lock of a team domain: what makes or deletes the domain's workspace (`.fed/teams/<domain>`,
 * `.fed/worktrees/<domain>` and branch `fed/<domain>`) together with its registry entry holds it, so
 * none of them acts on a registry read before another one changed it — `fed team onboard`, `fed team
 * remove`, and fed doctor's repairs of a killed onboarding. It is the onboarding lock's file, which
 * doctor already reads to leave a running onboarding alone. A live holder refuses at once (TEAM_BUSY,
 * exit 2): a worktree's checkout or removal takes seconds, and running again after it is the remedy;
 * the lock of a holder that is gone is taken over. Release it with releaseLock.
 */
export async function acquireDomainLock(
  fed: Federation,
  domain: string,
  /** What this process means to do with the team, for the refusal: "remove team "x"". */
  doing: string,
  options: WriteOptions = {},
): Promise<LockHandle> {
  fed.folderForWrite(federationPaths(fed.root).onboarding, undefined, options);
  return takeDomainLock(
    fed.root,
    domain,
    (holder) =>
      new RefusedError(
        'TEAM_BUSY',
        `cannot ${doing}: another process is onboarding or removing team "${domain}" right now (${holder}); wait for it to finish, then run this again`,
      ),
  );
}

/**
 * The domain's lock taken at once, its folder there already; a live holder is refused with `refusal`,
 * told who holds it. The holder is judged by its process only: a slow git on a big repository keeps it.
 */
export function takeDomainLock(
  root: string,
  domain: string,
  refusal: (holder: string) => RefusedError,
): Promise<LockHandle> {
  return acquireLock(onboardingPaths(root, domain).lock, {
    staleMs: Number.POSITIVE_INFINITY,
    timeoutMs: 0,
  }).catch((error: unknown) => {
    if (!(error instanceof LockTimeoutError)) throw error;
    throw refusal(describeLockOwner(error.owner));
  });
}
