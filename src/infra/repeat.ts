import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Run `cycle` once, or — with an interval — again every `intervalMs` until `signal` aborts. An abort
 * during the pause ends the loop at once; one during a cycle ends it after that cycle (a cycle is never
 * cut short here: it decides itself what an abort means to it).
 */
export async function repeatEvery(
  intervalMs: number | undefined,
  signal: AbortSignal | undefined,
  cycle: (index: number) => Promise<void>,
): Promise<void> {
  for (let index = 0; ; index++) {
    await cycle(index);
    if (intervalMs === undefined || signal?.aborted) return;
    await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
    if (signal?.aborted) return;
  }
}

/**
 * Waits for `settled`, `ms` at most. The timer is cleared as soon as either ends: one left pending would
 * hold the process open (the last launch of `fed run` would wait out its poll before the command ends).
 */
export async function waitAtMost(settled: Promise<unknown>, ms: number): Promise<void> {
  const timer = new AbortController();
  try {
    await Promise.race([settled, sleep(ms, undefined, { signal: timer.signal })]);
  } finally {
    timer.abort();
  }
}
