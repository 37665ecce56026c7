import { setTimeout as sleep } from 'node:timers/promises';

/**
 * `fed run`'s waits for rate limits to reset: which teams are waited for (a reset
 * before the run's deadline), which of the queued ones may start now, and the sleep in between.
 */

/** A queued item: it may start once `notBefore` (ms) has passed. */
export interface Waiting {
  notBefore: number;
}

/** The longest `fed run` waits for rate limits to reset, unless told otherwise (`--max-wait`). */
export const DEFAULT_MAX_WAIT_MS = 6 * 3_600_000;

/** A reset time still ahead, or undefined. */
export function resetAhead(resumeAt: string | null | undefined): string | undefined {
  return resumeAt && Date.parse(resumeAt) > Date.now() ? resumeAt : undefined;
}

/** A team paused by a rate limit that resets after the run's deadline is skipped, saying when it resumes. */
export function deferredPastDeadline<C extends { skip?: string; resumeAt?: string }>(
  candidate: C,
  deadline: number,
): C {
  const resumeAt = candidate.skip ? undefined : resetAhead(candidate.resumeAt);
  if (!resumeAt || Date.parse(resumeAt) <= deadline) return candidate;
  return { ...candidate, skip: `rate-limited, resumes at ${resumeAt} (after --max-wait)` };
}

/** The first queued team whose time has come, taken off the queue. */
export function takeReady<Q extends Waiting>(queue: Q[]): Q | undefined {
  const at = queue.findIndex((q) => q.notBefore <= Date.now());
  return at < 0 ? undefined : queue.splice(at, 1)[0];
}

/** Sleep until `at` (ms), or until the signal aborts; in steps, so a far time never overflows a timer. */
export async function sleepUntil(at: number, signal: AbortSignal | undefined): Promise<void> {
  const ms = Math.min(Math.max(0, at - Date.now()), 60_000);
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}
