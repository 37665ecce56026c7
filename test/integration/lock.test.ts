import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyLifecycleInputs, initFederation, onboardTeam, openFederation, RegistryConflictError } from 'fed';
import {
  acquireLock,
  commitRegistry,
  federationPaths,
  LockLostError,
  lockOwnerSchema,
  LockTimeoutError,
  processStartTime,
  readRegistry,
  releaseLock,
  withLock,
  workspacePaths,
} from 'fed/testing';
import { startFixture, waitFor } from '../helpers/fixture-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A pid that belonged to a process that has exited. */
async function deadPid(): Promise<number> {
  const child = startFixture('hold-lock.mjs', []);
  await child.done;
  return child.child.pid!;
}

describe('exclusive lock', () => {
  it('is exclusive, and released locks can be taken again', async () => {
    const lock = join(tempDir(), 'x.lock');
    const first = await acquireLock(lock);
    await expect(acquireLock(lock, { timeoutMs: 30 })).rejects.toBeInstanceOf(LockTimeoutError);
    releaseLock(first);
    expect(existsSync(lock)).toBe(false);
    releaseLock(await acquireLock(lock, { timeoutMs: 30 }));
  });

  it('names the holder when it times out', async () => {
    const lock = join(tempDir(), 'x.lock');
    await acquireLock(lock);
    await expect(acquireLock(lock, { timeoutMs: 20 })).rejects.toThrow(`held by pid ${process.pid} on ${hostname()}`);
  });

  it('does not release a lock that was taken over by someone else', async () => {
    const lock = join(tempDir(), 'x.lock');
    const mine = await acquireLock(lock);
    writeFileSync(lock, JSON.stringify({ ...mine.owner, token: 'someone-else' }));
    releaseLock(mine);
    expect(existsSync(lock)).toBe(true);
  });

  it('takes over a lock whose holder was SIGKILLed', async () => {
    const lock = join(tempDir(), 'x.lock');
    const holder = startFixture('hold-lock.mjs', [lock]);
    let out = '';
    holder.child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitFor(() => out.includes('locked'), 15_000, 'the holder');
    holder.child.kill('SIGKILL');
    await holder.done;
    // The dead pid is noticed at once, well before the age-based staleness.
    const handle = await acquireLock(lock, { staleMs: 60_000, timeoutMs: 1_000 });
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid });
    releaseLock(handle);
  });

  it('takes over a lock older than staleMs even if its owner cannot be checked', async () => {
    const lock = join(tempDir(), 'x.lock');
    writeFileSync(lock, 'garbage');
    await new Promise((r) => setTimeout(r, 30));
    await withLock(lock, () => undefined, { staleMs: 10, timeoutMs: 1_000 });
  });

  it('a stale-lock takeover has exactly one winner: 8 processes never overlap inside the lock', async () => {
    const dir = tempDir();
    const lock = join(dir, 'counter.lock');
    const counter = join(dir, 'counter');
    writeFileSync(counter, '0');
    // Every process starts by finding the same abandoned lock of a dead process.
    writeFileSync(
      lock,
      JSON.stringify({ pid: await deadPid(), host: hostname(), token: 'dead', acquiredAt: new Date().toISOString() }),
    );
    const workers = Array.from({ length: 8 }, () => startFixture('lock-counter.mjs', [lock, counter, '20']));
    const results = await Promise.all(workers.map((w) => w.done));
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(Number(readFileSync(counter, 'utf8'))).toBe(8 * 20);
  });

  it('never takes a lock from a live holder on this host, however old the lock is', async () => {
    const lock = join(tempDir(), 'x.lock');
    const holder = startFixture('hold-lock.mjs', [lock]);
    let out = '';
    holder.child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitFor(() => out.includes('locked'), 15_000, 'the holder');
      const owner = lockOwnerSchema.parse(JSON.parse(readFileSync(lock, 'utf8')));
      expect(owner.startTime).toBe(processStartTime(holder.child.pid!));
      const hourAgo = new Date(Date.now() - 3_600_000);
      utimesSync(lock, hourAgo, hourAgo);
      await expect(acquireLock(lock, { staleMs: 10, timeoutMs: 200 })).rejects.toBeInstanceOf(LockTimeoutError);
      expect(lockOwnerSchema.parse(JSON.parse(readFileSync(lock, 'utf8'))).token).toBe(owner.token);
    } finally {
      holder.child.kill('SIGKILL');
      await holder.done;
    }
  });

  it('takes over a lock whose pid now names another process (a reused pid: its start time differs)', async () => {
    const lock = join(tempDir(), 'x.lock');
    // Our own pid is alive, but the recorded start time is not ours: the recorded process is gone.
    writeFileSync(
      lock,
      JSON.stringify({
        pid: process.pid,
        host: hostname(),
        token: 'old',
        acquiredAt: new Date().toISOString(),
        startTime: '1',
      }),
    );
    const handle = await acquireLock(lock, { staleMs: 60_000, timeoutMs: 1_000 });
    expect(handle.owner.token).not.toBe('old');
    releaseLock(handle);
  });

  it('compare-on-write: a registry writer that lost its commit lock while stalled writes nothing', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const paths = federationPaths(root);
    const before = readFileSync(paths.registry, 'utf8');
    // While "stalled" inside the lock, the lock is removed and taken by someone else.
    const stolen = () => {
      writeFileSync(
        paths.registryLock,
        JSON.stringify({ pid: process.pid, host: hostname(), token: 'thief', acquiredAt: new Date().toISOString() }),
      );
      return new Date();
    };
    const error = await commitRegistry(root, 0, readRegistry(root), { now: stolen }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryConflictError);
    expect(readFileSync(paths.registry, 'utf8')).toBe(before);
  });

  it('compare-on-write: a lifecycle writer whose state lock was taken meanwhile writes nothing', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const team = await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    const paths = workspacePaths(team.location);
    let stolen = false;
    const steal = () => {
      if (!stolen)
        writeFileSync(
          paths.stateLock,
          JSON.stringify({ pid: process.pid, host: hostname(), token: 'thief', acquiredAt: new Date().toISOString() }),
        );
      stolen = true;
      return new Date();
    };
    const error = await applyLifecycleInputs(
      openFederation(root),
      team,
      [{ source: 'registry', event: { type: 'PAUSE' } }],
      { now: steal },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockLostError);
    expect(existsSync(paths.envelope)).toBe(false);
  });

  it('waits (and times out) rather than spin while a live but stalled waiter is taking over a dead holder', async () => {
    const lock = join(tempDir(), 'x.lock');
    writeFileSync(
      lock,
      JSON.stringify({ pid: await deadPid(), host: hostname(), token: 'dead', acquiredAt: new Date().toISOString() }),
    );
    // The takeover guard of a live process (this one) that stalled mid-takeover.
    const guard = await acquireLock(`${lock}.takeover`);
    await expect(acquireLock(lock, { timeoutMs: 100 })).rejects.toBeInstanceOf(LockTimeoutError);
    releaseLock(guard);
    releaseLock(await acquireLock(lock, { timeoutMs: 1_000 }));
  });

  it('clears a takeover guard left by a process killed mid-takeover and takes the lock at once, even with timeoutMs 0 (leases)', async () => {
    const lock = join(tempDir(), 'x.lock');
    const dead = (token: string) =>
      JSON.stringify({ pid: deadPidValue, host: hostname(), token, acquiredAt: new Date().toISOString() });
    const deadPidValue = await deadPid();
    writeFileSync(lock, dead('dead-holder'));
    writeFileSync(`${lock}.takeover`, dead('dead-taker'));
    const handle = await acquireLock(lock, { staleMs: Number.POSITIVE_INFINITY, timeoutMs: 0 });
    expect(existsSync(`${lock}.takeover`)).toBe(false);
    releaseLock(handle);
  });
});
