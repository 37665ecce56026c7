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
