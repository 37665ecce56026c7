import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FedError } from '../errors.js';
import { createFileExclusive, unlinkQuietly } from './atomic-write.js';

/**
 * A short exclusive lock held as a file (`<path>` containing its owner). It is created complete in one
 * step (hard link of a written temp file), so a waiter never sees an empty owner. A holder that died —
 * its pid is gone on this host, or the lock is older than `staleMs` — is taken over; the takeover runs
 * under a second guard file and removes the lock only if it is still the very file judged stale, so when
 * many waiters notice the same dead holder exactly one of them removes it and the normal race decides
 * the next owner.
 */
export interface LockOwner {
  pid: number;
  host: string;
  token: string;
  acquiredAt: string;
}

export interface LockOptions {
  /** A lock older than this is considered abandoned even if its pid looks alive (default 5 000 ms). */
  staleMs?: number;
  /** Give up waiting after this long (default 15 000 ms). */
  timeoutMs?: number;
  /** Base pause between attempts; jittered (default 2 ms). */
  retryMs?: number;
}

export class LockTimeoutError extends FedError {
  constructor(path: string, owner: LockOwner | undefined, waitedMs: number) {
    const who = owner ? `pid ${owner.pid} on ${owner.host} since ${owner.acquiredAt}` : 'an unknown owner';
    super(
      'LOCK_TIMEOUT',
      `timed out after ${waitedMs} ms waiting for lock ${path} held by ${who}; if that process is gone, remove the file`,
      { refusal: false },
    );
  }
}

export interface LockHandle {
  readonly path: string;
  readonly owner: LockOwner;
}

interface Observed {
  owner: LockOwner | undefined;
  identity: string;
  ageMs: number;
}

function observe(path: string): Observed | undefined {
  try {
    const stat = statSync(path);
    const text = readFileSync(path, 'utf8');
    let owner: LockOwner | undefined;
    try {
      owner = JSON.parse(text) as LockOwner;
    } catch {
      owner = undefined;
    }
    return { owner, identity: `${stat.ino}:${stat.mtimeMs}:${text}`, ageMs: Date.now() - stat.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isAbandoned(seen: Observed, staleMs: number): boolean {
  if (seen.ageMs > staleMs) return true;
  const owner = seen.owner;
  return owner !== undefined && owner.host === hostname() && owner.pid !== process.pid && !processIsAlive(owner.pid);
}

/** Locks live only as long as a process; they need no fsync to be correct. */
function createExclusive(path: string, owner: LockOwner): boolean {
  return createFileExclusive(path, JSON.stringify(owner), { durable: false });
}

function newOwner(): LockOwner {
  return { pid: process.pid, host: hostname(), token: randomUUID(), acquiredAt: new Date().toISOString() };
}

/** Remove `path` only if it is still the file seen as `identity`. Runs under the takeover guard. */
function removeIfUnchanged(path: string, identity: string): void {
  const now = observe(path);
  if (now && now.identity === identity) unlinkQuietly(path);
}

function takeOver(path: string, stale: Observed, staleMs: number): void {
  const guard = `${path}.takeover`;
  if (!createExclusive(guard, newOwner())) {
    // Another waiter is taking over right now; only a guard left behind by a dead process is cleared.
    const guardSeen = observe(guard);
    if (guardSeen && isAbandoned(guardSeen, staleMs)) removeIfUnchanged(guard, guardSeen.identity);
    return;
  }
  try {
    removeIfUnchanged(path, stale.identity);
  } finally {
    unlinkQuietly(guard);
  }
}

export async function acquireLock(path: string, options: LockOptions = {}): Promise<LockHandle> {
  const staleMs = options.staleMs ?? 5_000;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const retryMs = options.retryMs ?? 2;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const owner = newOwner();
    if (createExclusive(path, owner)) return { path, owner };
    const seen = observe(path);
    if (seen === undefined) continue;
    if (isAbandoned(seen, staleMs)) {
      takeOver(path, seen, staleMs);
      continue;
    }
    const waited = Date.now() - started;
    if (waited > timeoutMs) throw new LockTimeoutError(path, seen.owner, waited);
    // Exponential backoff capped at 50 ms, with full jitter so waiters do not stampede in step.
    const cap = Math.min(50, retryMs * 2 ** Math.min(attempt, 5));
    await sleep(Math.random() * cap);
  }
}

/** Whether someone holds the lock right now (it exists and its holder is not known to be gone). */
export function isLockHeld(path: string, options: Pick<LockOptions, 'staleMs'> = {}): boolean {
  const seen = observe(path);
  return seen !== undefined && !isAbandoned(seen, options.staleMs ?? 5_000);
}

/** Release only our own lock: if it was taken over as stale, the new owner's lock is left alone. */
export function releaseLock(handle: LockHandle): void {
  const seen = observe(handle.path);
  if (seen?.owner?.token === handle.owner.token) unlinkQuietly(handle.path);
}

export async function withLock<T>(path: string, fn: () => T | Promise<T>, options: LockOptions = {}): Promise<T> {
  const handle = await acquireLock(path, options);
  try {
    return await fn();
  } finally {
    releaseLock(handle);
  }
}
