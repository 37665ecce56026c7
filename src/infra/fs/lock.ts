import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FedError } from '../../core/errors.js';
import { lockOwnerSchema, type LockOwner } from '../../core/schema/lock-owner.js';
import { randomUuid } from '../crypto/random.js';
import { createFileExclusive, unlinkQuietly } from './atomic-write.js';
import { ensureDirectory } from './ensure-directory.js';
import { LockRelease } from './lock-release.js';
import { currentProcessStartTime, processIsAlive } from './process-identity.js';

export type { LockOwner } from '../../core/schema/lock-owner.js';

/**
 * A short exclusive lock held as a file (`<path>` containing its owner, `src/core/schema/lock-owner.ts`). It is
 * created complete in one step (hard link of a written temp file), so a waiter never sees an empty owner.
 *
 * A lock is taken over only from a holder that is gone: on this host, when its process (pid AND start
 * time, so a reused pid does not count) no longer runs — never because of age, since a live holder may
 * be merely slow (a slow fsync, swap, SIGSTOP) and taking its lock would let two writers in. Age is
 * only the last resort for an owner that cannot be checked (another host, an unreadable owner file).
 * The takeover runs under a second guard file and removes the lock only if it is still the very file
 * judged abandoned, so when many waiters notice the same dead holder exactly one removes it.
 *
 * A holder that stalled and lost its lock anyway (its owner file removed by hand or by `fed doctor`, or
 * judged by age on another host) must not write: `assertLockHeld` re-checks the token right before the
 * commit (see `commitRegistry`), so a late writer fails instead of overwriting the next holder's work.
 */
export interface LockOptions {
  /**
   * A lock whose holder cannot be checked (another host, unreadable owner) is considered abandoned after
   * this long (default 5 000 ms). A holder on this host is judged by its process alone.
   */
  staleMs?: number;
  /** Give up waiting after this long (default 15 000 ms). */
  timeoutMs?: number;
  /** Base pause between attempts; jittered (default 2 ms). */
  retryMs?: number;
  /**
   * Make the lock's folder when it is not there (found by the first attempt failing, so a lock in a folder
   * that exists costs no mkdir).
   */
  makeFolder?: boolean;
  /** What the holder goes by, recorded in the lock (the owner's `name`) for those who tell who holds it. */
  name?: string;
}

/** `pid 123 on host since <time>`, for messages that name who holds a lock. */
export function describeLockOwner(owner: LockOwner | undefined): string {
  return owner ? `pid ${owner.pid} on ${owner.host} since ${owner.acquiredAt}` : 'an unknown owner';
}

export class LockTimeoutError extends FedError {
  readonly owner: LockOwner | undefined;

  constructor(path: string, owner: LockOwner | undefined, waitedMs: number) {
    super(
      'LOCK_TIMEOUT',
      `timed out after ${waitedMs} ms waiting for lock ${path} held by ${describeLockOwner(owner)}; ` +
        'that process is still running — wait for it or stop it (a lock of a process that is gone is taken over by itself; fed doctor --fix removes it)',
      { refusal: false },
    );
    this.owner = owner;
  }
}

/** The lock was taken from this holder while it held it: it must not write. */
export class LockLostError extends FedError {
  constructor(path: string, now: LockOwner | undefined) {
    super(
      'LOCK_LOST',
      `lost lock ${path} while holding it (it is now held by ${describeLockOwner(now)}); nothing was written — try again`,
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
    return { owner: ownerIn(text), identity: `${stat.ino}:${stat.mtimeMs}:${text}`, ageMs: Date.now() - stat.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function ownerIn(text: string): LockOwner | undefined {
  try {
    const parsed = lockOwnerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The lock's owner alone, in one read: a holder checking its own token needs neither the file's identity
 * nor its age (which `observe` stats for). Undefined when there is no lock or its owner is unreadable.
 */
function currentOwner(path: string): LockOwner | undefined {
  try {
    return ownerIn(readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** What can be said about a lock's holder. */
export type LockHolderState = 'alive' | 'gone' | 'unchecked';

function holderState(seen: Observed): LockHolderState {
  const owner = seen.owner;
  if (owner === undefined || owner.host !== hostname()) return 'unchecked';
  return processIsAlive(owner.pid, owner.startTime) ? 'alive' : 'gone';
}

function isAbandoned(seen: Observed, staleMs: number): boolean {
  const state = holderState(seen);
  return state === 'gone' || (state === 'unchecked' && seen.ageMs > staleMs);
}

/** Locks live only as long as a process; they need no fsync to be correct. */
function createExclusive(path: string, owner: LockOwner): boolean {
  return createFileExclusive(path, JSON.stringify(owner), { durable: false });
}

function createIn(path: string, owner: LockOwner, makeFolder: boolean): boolean {
  try {
    return createExclusive(path, owner);
  } catch (error) {
    if (!makeFolder || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    ensureDirectory(dirname(path));
    return createExclusive(path, owner);
  }
}

function newOwner(name?: string): LockOwner {
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    token: randomUuid(),
    acquiredAt: new Date().toISOString(),
  };
  const startTime = currentProcessStartTime();
  if (startTime !== undefined) owner.startTime = startTime;
  if (name !== undefined) owner.name = name;
  return owner;
}

/** Remove `path` only if it is still the file seen as `identity`. Runs under the takeover guard. */
function removeIfUnchanged(path: string, identity: string): boolean {
  const now = observe(path);
  if (!now || now.identity !== identity) return false;
  unlinkQuietly(path);
  return true;
}

function takeOver(path: string, stale: Observed, staleMs: number): boolean {
  const guard = `${path}.takeover`;
  // Twice at most: a guard left behind by a process killed mid-takeover is cleared and the takeover is
  // tried again at once — clearing it is no wait for a live holder, so it must not cost a caller that
  // waits for none (timeoutMs 0, as leases do) a refusal.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (createExclusive(guard, newOwner())) {
      try {
        return removeIfUnchanged(path, stale.identity);
      } finally {
        unlinkQuietly(guard);
      }
    }
    // Another waiter is taking over right now; only a guard left behind by a dead process is cleared.
    const guardSeen = observe(guard);
    if (guardSeen && !(isAbandoned(guardSeen, staleMs) && removeIfUnchanged(guard, guardSeen.identity))) return false;
  }
  return false;
}

export async function acquireLock(path: string, options: LockOptions = {}): Promise<LockHandle> {
  const staleMs = options.staleMs ?? 5_000;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const retryMs = options.retryMs ?? 2;
  const started = Date.now();
  // Made at the first wait (null: the folder cannot be watched); the attempt right after it closes the gap
  // in which a release went unheard.
  let release: LockRelease | null | undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      const owner = newOwner(options.name);
      if (createIn(path, owner, options.makeFolder ?? false)) return { path, owner };
      const seen = observe(path);
      if (seen === undefined) continue;
      // Retry at once only after removing an abandoned lock; a takeover another waiter is running (its
      // guard holder may itself be stalled) is waited for like any holder, with backoff and the timeout.
      if (isAbandoned(seen, staleMs) && takeOver(path, seen, staleMs)) continue;
      const waited = Date.now() - started;
      if (waited > timeoutMs) throw new LockTimeoutError(path, seen.owner, waited);
      if (release === undefined && timeoutMs > 0) {
        release = LockRelease.listen(path) ?? null;
        if (release) continue;
      }
      // Until the holder releases it — polling meanwhile would take the CPU the holder needs — or, unheard,
      // 25–50 ms (a holder that died releases nothing). Without a watcher, an exponential backoff capped at
      // 50 ms, with full jitter so waiters do not stampede in step.
      if (release) await release.next(25 + Math.random() * 25);
      else await sleep(Math.random() * Math.min(50, retryMs * 2 ** Math.min(attempt, 5)));
    }
  } finally {
    release?.close();
  }
}

/** Whether someone holds the lock right now (it exists and its holder is not known to be gone). */
export function isLockHeld(path: string, options: Pick<LockOptions, 'staleMs'> = {}): boolean {
  const seen = observe(path);
  return seen !== undefined && !isAbandoned(seen, options.staleMs ?? 5_000);
}

/** Throws LockLostError unless `handle` still holds its lock: the check a holder makes right before it commits. */
export function assertLockHeld(handle: LockHandle): void {
  const owner = currentOwner(handle.path);
  if (owner?.token !== handle.owner.token) throw new LockLostError(handle.path, owner);
}

/** Release only our own lock: if it was taken over, the new owner's lock is left alone. */
export function releaseLock(handle: LockHandle): void {
  if (currentOwner(handle.path)?.token === handle.owner.token) unlinkQuietly(handle.path);
}

export async function withLock<T>(
  path: string,
  fn: (handle: LockHandle) => T | Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const handle = await acquireLock(path, options);
  try {
    return await fn(handle);
  } finally {
    releaseLock(handle);
  }
}

/** A lock file as `fed doctor` sees it. */
export interface LockReport {
  path: string;
  owner: LockOwner | undefined;
  holder: LockHolderState;
  ageMs: number;
  /** Gone, or unchecked and older than the stale age: safe to remove. */
  abandoned: boolean;
  /** Which file was seen (inode, time and content), so a removal later can check it is still that one. */
  identity: string;
}

/** Inspect a lock file without touching it; undefined when there is none. */
export function inspectLock(path: string, options: Pick<LockOptions, 'staleMs'> = {}): LockReport | undefined {
  const seen = observe(path);
  if (!seen) return undefined;
  return {
    path,
    owner: seen.owner,
    holder: holderState(seen),
    ageMs: seen.ageMs,
    abandoned: isAbandoned(seen, options.staleMs ?? 5_000),
    identity: seen.identity,
  };
}

/**
 * Remove the lock file `report` describes — only if it is still that very file, under the takeover guard:
 * one a fed command took over since it was inspected is a live holder's and is left alone.
 */
export function removeInspectedLock(report: LockReport): boolean {
  return takeOver(
    report.path,
    { owner: report.owner, identity: report.identity, ageMs: report.ageMs },
    Number.POSITIVE_INFINITY,
  );
}

/** Remove a lock whose holder is gone (as `acquireLock` would when it next waits for it); true if removed. */
export function removeAbandonedLock(path: string, options: Pick<LockOptions, 'staleMs'> = {}): boolean {
  const staleMs = options.staleMs ?? 5_000;
  const seen = observe(path);
  return seen !== undefined && isAbandoned(seen, staleMs) && takeOver(path, seen, staleMs);
}
