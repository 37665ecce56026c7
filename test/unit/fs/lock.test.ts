import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * The lock file's rules in one process: who holds it, when it counts as abandoned, how a waiter backs off
 * and when it gives up, and what fed doctor's inspect-and-remove may remove. The clock is frozen where a
 * boundary (a lock exactly staleMs old, a wait of exactly timeoutMs) is the point, and the backoff's
 * sleeps are recorded instead of slept. test/integration/lock.test.ts has the processes: holders killed,
 * concurrent takeovers.
 */
vi.mock('node:fs', async (importOriginal) => (await import('./fs-faults.js')).faultyFs(await importOriginal()));

/**
 * When set, the lock's pauses call this with their length instead of sleeping: over at once, or never
 * when it returns `'never'` (only a release heard can end such a wait).
 */
const sleeps = vi.hoisted(() => ({ hook: undefined as ((ms: number) => void | 'never') | undefined }));
vi.mock('node:timers/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:timers/promises')>();
  const setTimeout = <T>(ms?: number, value?: T): Promise<T | undefined> => {
    if (!sleeps.hook) return real.setTimeout(ms, value);
    if (sleeps.hook(ms ?? 0) === 'never') return new Promise(() => undefined);
    return Promise.resolve(value);
  };
  return { ...real, setTimeout, default: { ...real, setTimeout } };
});

const { existsSync, mkdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } =
  await import('node:fs');
const { hostname } = await import('node:os');
const { join } = await import('node:path');
const { hooks, resetFaults } = await import('./fs-faults.js');
const {
  acquireLock,
  assertLockHeld,
  describeLockOwner,
  inspectLock,
  isLockHeld,
  LockLostError,
  LockTimeoutError,
  releaseLock,
  removeAbandonedLock,
  removeInspectedLock,
  withLock,
} = await import('../../../src/infra/fs/lock.js');
const { currentProcessStartTime } = await import('fed/testing');
const { tempDir } = await import('../../helpers/temp-dir.js');

afterEach(() => {
  resetFaults();
  sleeps.hook = undefined;
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const HOUR_MS = 3_600_000;

/** An owner on this host: this process (alive), or one whose pid was reused since (gone). */
function owner(token: string, state: 'alive' | 'gone' = 'alive') {
  const start = currentProcessStartTime()!;
  return {
    pid: process.pid,
    host: hostname(),
    token,
    acquiredAt: '2026-01-31T12:00:00.000Z',
    startTime: state === 'alive' ? start : `${Number(start) + 1}`,
  };
}

/** An owner on another host: it cannot be checked, only aged. */
const elsewhere = (token: string) => ({ ...owner(token), host: `not-${hostname()}` });

function writeLock(path: string, content: unknown, ageMs = 0): void {
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  if (ageMs > 0) {
    const then = (Date.now() - ageMs) / 1000;
    utimesSync(path, then, then);
  }
}

/** Freeze Date.now() at a whole second, so a file's age is exactly what the test sets. */
function freezeClock(): number {
  const now = Math.floor(Date.now() / 1000) * 1000;
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(now);
  return now;
}

describe('what the lock errors say', () => {
  it('a timeout names the lock, the holder, how long it waited and what to do; it is not a refusal', () => {
    const error = new LockTimeoutError('/fed/x.lock', owner('t'), 1234);
    expect(error).toMatchObject({
      code: 'LOCK_TIMEOUT',
      refusal: false,
      owner: owner('t'),
      message:
        `timed out after 1234 ms waiting for lock /fed/x.lock held by pid ${process.pid} on ${hostname()} since 2026-01-31T12:00:00.000Z; ` +
        'that process is still running — wait for it or stop it (a lock of a process that is gone is taken over by itself; fed doctor --fix removes it)',
    });
  });

  it('a lost lock names the lock and who holds it now; it is not a refusal', () => {
    expect(new LockLostError('/fed/x.lock', undefined)).toMatchObject({
      code: 'LOCK_LOST',
      refusal: false,
      message:
        'lost lock /fed/x.lock while holding it (it is now held by an unknown owner); nothing was written — try again',
    });
    expect(describeLockOwner(elsewhere('t'))).toBe(
      `pid ${process.pid} on not-${hostname()} since 2026-01-31T12:00:00.000Z`,
    );
  });
});

describe('taking a lock', () => {
  it('records this process as its owner: pid, host, start time, a fresh token and when', async () => {
    const lock = join(tempDir(), 'x.lock');
    const handle = await acquireLock(lock);
    expect(handle.path).toBe(lock);
    expect(handle.owner).toEqual({
      pid: process.pid,
      host: hostname(),
      token: expect.stringMatching(/^[0-9a-f-]{36}$/),
      acquiredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      startTime: currentProcessStartTime(),
    });
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toEqual(handle.owner);
    releaseLock(handle);
  });

  it('waits for a holder that lets go, and takes the lock then', async () => {
    const lock = join(tempDir(), 'x.lock');
    const holder = await acquireLock(lock);
    const waiting = acquireLock(lock, { timeoutMs: 30_000 });
    releaseLock(holder);
    releaseLock(await waiting);
  });

  it('waits for the holder to let go, woken by the release itself, not by the end of a pause', async () => {
    const lock = join(tempDir(), 'x.lock');
    const holder = await acquireLock(lock);
    const slept: number[] = [];
    sleeps.hook = (ms) => {
      slept.push(ms);
      return 'never';
    };
    const waiting = acquireLock(lock, { timeoutMs: 30_000 });
    await vi.waitFor(() => expect(slept.length).toBeGreaterThan(0), { timeout: 15_000 });
    releaseLock(holder);
    releaseLock(await waiting);
    // One pause, 25–50 ms should the release go unheard (a holder that died releases nothing).
    expect(slept).toHaveLength(1);
    expect(slept[0]).toBeGreaterThanOrEqual(25);
    expect(slept[0]).toBeLessThanOrEqual(50);
  });

  it('where the folder cannot be watched, backs off exponentially from retryMs, capped at 50 ms, with full jitter', async () => {
    const lock = join(tempDir(), 'x.lock');
    const holder = await acquireLock(lock);
    hooks.watch = () => {
      throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
    };
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const slept: number[] = [];
    sleeps.hook = (ms) => {
      slept.push(ms);
      if (slept.length === 8) releaseLock(holder);
    };
    releaseLock(await acquireLock(lock));
    expect(slept).toEqual([1, 2, 4, 8, 16, 25, 25, 25]);
  });

  it('gives up only once more than timeoutMs has passed, saying how long it waited', async () => {
    const lock = join(tempDir(), 'x.lock');
    const holder = await acquireLock(lock);
    freezeClock();
    let slept = 0;
    sleeps.hook = () => {
      slept++;
      vi.setSystemTime(Date.now() + 10);
    };
    await expect(acquireLock(lock, { timeoutMs: 30 })).rejects.toThrow(
      `timed out after 40 ms waiting for lock ${lock} held by ${describeLockOwner(holder.owner)}`,
    );
    expect(slept).toBe(4);
    releaseLock(holder);
  });

  it('with timeoutMs 0, still takes a lock let go while no time has passed', async () => {
    const lock = join(tempDir(), 'x.lock');
    const holder = await acquireLock(lock);
    freezeClock();
    sleeps.hook = () => releaseLock(holder);
    releaseLock(await acquireLock(lock, { timeoutMs: 0 }));
  });

  it('a lock let go between its failed create and the look at its owner is taken at once', async () => {
    const lock = join(tempDir(), 'x.lock');
    writeLock(lock, owner('holder'));
    let letGo = false;
    hooks.linkSync = (real, from, to) => {
      try {
        return real(from, to);
      } catch (error) {
        if (to === lock && !letGo) {
          letGo = true;
          unlinkSync(lock);
        }
        throw error;
      }
    };
    const slept: number[] = [];
    sleeps.hook = (ms) => void slept.push(ms);
    releaseLock(await acquireLock(lock));
    expect(letGo).toBe(true);
    expect(slept).toEqual([]);
  });

  it('makes its folder only when asked to', async () => {
    const dir = tempDir();
    const lock = join(dir, 'locks', 'x.lock');
    await expect(acquireLock(lock)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(existsSync(join(dir, 'locks'))).toBe(false);
    releaseLock(await acquireLock(lock, { makeFolder: true }));
    expect(statSync(join(dir, 'locks')).isDirectory()).toBe(true);
  });

  it('asked to make its folder, passes on any failure other than a missing folder as it is', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), 'x');
    await expect(acquireLock(join(dir, 'file', 'x.lock'), { makeFolder: true })).rejects.toMatchObject({
      code: 'ENOTDIR',
      syscall: 'open',
    });
  });
});

describe('whether a lock is held', () => {
  // The names hold no pid: Stryker finds a test again by its name, in another process.
  it.each([
    ['no lock', false, undefined, 0, {}],
    ['a live holder on this host, however old', true, owner('t'), HOUR_MS, {}],
    ['a holder that is gone', false, owner('t', 'gone'), 0, {}],
    ['a holder on another host, recent', true, elsewhere('t'), 0, {}],
    ['a holder on another host, older than the default 5 s', false, elsewhere('t'), 6_000, {}],
    ['a holder on another host, younger than staleMs', true, elsewhere('t'), 6_000, { staleMs: HOUR_MS }],
    ['an unreadable owner, recent', true, 'garbage', 0, {}],
  ])('%s: held is %s', (_, held, content, ageMs, options) => {
    const lock = join(tempDir(), 'x.lock');
    if (content !== undefined) writeLock(lock, content, ageMs);
    expect(isLockHeld(lock, options)).toBe(held);
  });
});

describe('inspecting a lock (fed doctor)', () => {
  it('reports its owner, holder, age and whether it is abandoned', () => {
    const now = freezeClock();
    const lock = join(tempDir(), 'x.lock');
    writeLock(lock, owner('t'), 2_000);
    const { ino, mtimeMs } = statSync(lock);
    expect(inspectLock(lock)).toEqual({
      path: lock,
      owner: owner('t'),
      holder: 'alive',
      ageMs: 2_000,
      abandoned: false,
      identity: `${ino}:${mtimeMs}:${JSON.stringify(owner('t'))}`,
    });
    expect(mtimeMs).toBe(now - 2_000);
  });

  it.each([
    ['gone', owner('t', 'gone'), 0, 'gone', true],
    ['another host, recent', elsewhere('t'), 0, 'unchecked', false],
    ['another host, older than the default 5 s', elsewhere('t'), 6_000, 'unchecked', true],
    ['an unreadable owner, older than the default 5 s', '{"pid":', 6_000, 'unchecked', true],
  ])('a holder %s', (_, content, ageMs, holder, abandoned) => {
    const lock = join(tempDir(), 'x.lock');
    writeLock(lock, content, ageMs);
    expect(inspectLock(lock)).toMatchObject({ holder, abandoned });
  });

  it('an unchecked lock exactly staleMs old is not abandoned yet; one millisecond older, it is', () => {
    freezeClock();
    const lock = join(tempDir(), 'x.lock');
    writeLock(lock, elsewhere('t'), 1_000);
    expect(inspectLock(lock, { staleMs: 1_000 })).toMatchObject({ ageMs: 1_000, abandoned: false });
    expect(inspectLock(lock, { staleMs: 999 })).toMatchObject({ abandoned: true });
  });

  it('no lock is undefined; a path that cannot be a lock file is an error', () => {
    const dir = tempDir();
    expect(inspectLock(join(dir, 'x.lock'))).toBeUndefined();
    writeFileSync(join(dir, 'file'), 'x');
    expect(() => inspectLock(join(dir, 'file', 'x.lock'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    mkdirSync(join(dir, 'folder.lock'));
    expect(() => inspectLock(join(dir, 'folder.lock'))).toThrow(expect.objectContaining({ code: 'EISDIR' }));
  });

  it('removing the inspected lock removes only that very file', () => {
    const dir = tempDir();
    const lock = join(dir, 'x.lock');
    writeLock(lock, elsewhere('old'));
    const report = inspectLock(lock)!;
    writeLock(lock, elsewhere('new'));
    expect(removeInspectedLock(report)).toBe(false);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ token: 'new' });
    expect(removeInspectedLock(inspectLock(lock)!)).toBe(true);
    expect(existsSync(lock)).toBe(false);
    expect(removeInspectedLock(report)).toBe(false);
    expect(existsSync(`${lock}.takeover`)).toBe(false);
  });
});

describe('removing an abandoned lock', () => {
  it.each([
    ['a holder that is gone', true, owner('t', 'gone'), 0],
    ['a holder on another host, older than the default 5 s', true, elsewhere('t'), 6_000],
    ['a live holder, however old', false, owner('t'), HOUR_MS],
    ['a holder on another host, recent', false, elsewhere('t'), 0],
  ])('%s: removed is %s', (_, removed, content, ageMs) => {
    const lock = join(tempDir(), 'x.lock');
    writeLock(lock, content, ageMs);
    expect(removeAbandonedLock(lock)).toBe(removed);
    expect(existsSync(lock)).toBe(!removed);
    expect(existsSync(`${lock}.takeover`)).toBe(false);
  });

  it('no lock: nothing to remove', () => {
    expect(removeAbandonedLock(join(tempDir(), 'x.lock'))).toBe(false);
  });

  it('clears a takeover guard its dead taker left behind, then removes the lock', () => {
    const lock = join(tempDir(), 'x.lock');
    writeLock(lock, owner('holder', 'gone'));
    writeLock(`${lock}.takeover`, owner('taker', 'gone'));
    expect(removeAbandonedLock(lock)).toBe(true);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(`${lock}.takeover`)).toBe(false);
  });

  it('leaves the lock to a live taker holding the guard', () => {
    const lock = join(tempDir(), 'x.lock');
    writeLock(lock, owner('holder', 'gone'));
    writeLock(`${lock}.takeover`, owner('taker'));
    expect(removeAbandonedLock(lock)).toBe(false);
    expect(existsSync(lock)).toBe(true);
    expect(existsSync(`${lock}.takeover`)).toBe(true);
  });

  it('gives up after clearing dead guards twice, when yet another one is there each time', () => {
    const lock = join(tempDir(), 'x.lock');
    const guard = `${lock}.takeover`;
    writeLock(lock, owner('holder', 'gone'));
    let planted = 0;
    hooks.linkSync = (real, from, to) => {
      if (to === guard && planted < 2) {
        planted++;
        writeLock(guard, owner(`taker-${planted}`, 'gone'));
      }
      return real(from, to);
    };
    expect(removeAbandonedLock(lock)).toBe(false);
    expect(planted).toBe(2);
    expect(existsSync(lock)).toBe(true);
    expect(removeAbandonedLock(lock)).toBe(true);
  });
});

describe('holding and letting go', () => {
  it('a holder still holds its lock until someone else’s replaces it or it is removed', async () => {
    const lock = join(tempDir(), 'x.lock');
    const handle = await acquireLock(lock);
    assertLockHeld(handle);
    writeLock(lock, elsewhere('thief'));
    expect(() => assertLockHeld(handle)).toThrow(new LockLostError(lock, elsewhere('thief')).message);
    releaseLock(handle);
    expect(existsSync(lock)).toBe(true);
    writeLock(lock, 'garbage');
    expect(() => assertLockHeld(handle)).toThrow(new LockLostError(lock, undefined).message);
  });

  it('a lock removed from under its holder is lost, and letting it go then is harmless', async () => {
    const lock = join(tempDir(), 'x.lock');
    const handle = await acquireLock(lock);
    releaseLock(handle);
    expect(() => assertLockHeld(handle)).toThrow(LockLostError);
    releaseLock(handle);
  });

  it('a lock path that cannot be read is an error, not a lost lock', async () => {
    const dir = tempDir();
    const handle = await acquireLock(join(dir, 'x.lock'));
    const folder = { ...handle, path: join(dir, 'folder.lock') };
    mkdirSync(folder.path);
    expect(() => assertLockHeld(folder)).toThrow(expect.objectContaining({ code: 'EISDIR' }));
    releaseLock(handle);
  });

  it('withLock gives the handle to the work, returns its value, and lets go after, also when it throws', async () => {
    const lock = join(tempDir(), 'x.lock');
    expect(
      await withLock(lock, (handle) => {
        expect(isLockHeld(handle.path)).toBe(true);
        return 42;
      }),
    ).toBe(42);
    expect(existsSync(lock)).toBe(false);
    const failed = new Error('work failed');
    await expect(
      withLock(lock, () => {
        throw failed;
      }),
    ).rejects.toBe(failed);
    expect(existsSync(lock)).toBe(false);
  });
});
