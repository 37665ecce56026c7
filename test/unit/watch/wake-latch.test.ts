import { afterEach, describe, expect, it, vi } from 'vitest';
import { wakeLatch } from '../../../src/infra/watch/wake-latch.js';

/** Whether `promise` has settled once pending callbacks have run. */
async function settled(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('wakeLatch', () => {
  afterEach(() => vi.useRealTimers());

  it('a wake-up while nobody waits ends the next wait at once, and only that one', async () => {
    vi.useFakeTimers();
    const latch = wakeLatch();
    latch.wake();
    latch.wake();
    expect(await settled(latch.wait())).toBe(true);
    expect(await settled(latch.wait())).toBe(false);
  });

  it('a wake-up ends the wait under way', async () => {
    vi.useFakeTimers();
    const latch = wakeLatch();
    const waiting = latch.wait();
    expect(await settled(waiting)).toBe(false);
    latch.wake();
    expect(await settled(waiting)).toBe(true);
  });

  it('a wait with a timeout ends when it passes, and leaves no wake-up behind', async () => {
    vi.useFakeTimers();
    const latch = wakeLatch();
    const waiting = latch.wait(1_000);
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(waiting)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(waiting)).toBe(true);
    expect(await settled(latch.wait())).toBe(false);
  });
});
