import { setTimeout as sleep } from 'node:timers/promises';
import type { DispatchQueue } from '../../ports/dispatch-queue.js';
import type { Dispatcher } from './dispatcher.js';
import { ABORTED, untilAborted } from './until-aborted.js';

/** How long one ask for queued work waits for some before asking again (and seeing whether to stop). */
const TAKE_WAIT_MS = 2_000;
/** How soon an ask that failed (the NATS server unreachable for a moment) is made again. */
const RETRY_MS = 5_000;

/**
 * A server's share of the unplaced teams' work: while it has free capacity, it takes the oldest queued
 * work from the shared queue and hands it to its dispatcher, until `signal` aborts. Work taken as the
 * server stops is given back at once, for another host.
 */
export async function takeUnplacedWork(
  queue: DispatchQueue,
  dispatcher: Dispatcher,
  ackWaitMs: number,
  signal: AbortSignal,
  onWarning: (text: string) => void,
): Promise<void> {
  let lastWarning: string | undefined;
  while (!signal.aborted) {
    if (!dispatcher.hasCapacity()) {
      await dispatcher.capacityFreed(TAKE_WAIT_MS);
      continue;
    }
    try {
      const asking = queue.take(TAKE_WAIT_MS, ackWaitMs);
      // A broker that is unreachable holds the ask until it is back: stopping does not wait for it, and
      // work it hands over after all is given back at once.
      const taken = await untilAborted(asking, signal);
      if (taken === ABORTED) {
        asking.then((late) => late?.retry(0)).catch(() => undefined);
        break;
      }
      if (taken && signal.aborted) taken.retry(0);
      else if (taken) await dispatcher.startTaken(taken);
      lastWarning = undefined;
    } catch (error) {
      const text = `unplaced teams' work is not taken from ${queue.location} for now: ${(error as Error).message}`;
      if (text !== lastWarning) onWarning(text);
      lastWarning = text;
      await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined);
    }
  }
}
