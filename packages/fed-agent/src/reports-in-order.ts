import type { ReportEvent } from './fed-event.js';

export interface ReportsInOrder {
  /** Settles once the report is on its way (after the one before was applied; that one refused, throws). */
  send: (type: string, data: Record<string, unknown>) => Promise<void>;
  /** Settles when the last report sent was applied; throws its refusal. */
  applied: () => Promise<unknown>;
}

/**
 * The agent's reports, one at a time and in order. While the launcher applies the last one (a durable
 * write and a report to meta: milliseconds the agent would otherwise wait idle), the agent goes on with
 * what leaves no trace — reading and thinking — and waits for it (`applied`) before anything the lifecycle
 * must have seen first. A refused report throws there, as it would have where it was sent. `send` settles
 * once the report is on its way: the agent's work is synchronous, so a request still waiting for the
 * event loop would only leave when that work is done.
 */
export function reportsInOrder(report: ReportEvent): ReportsInOrder {
  let last: Promise<unknown> = Promise.resolve();
  return {
    send: async (type, data) => {
      // Chained at once, so the order holds even for two sends not awaited in between: each report
      // leaves once the one before was applied, and never if that one was refused.
      const previous = last;
      let sent!: () => void;
      const onItsWay = new Promise<void>((resolve) => (sent = resolve));
      const applied = previous.then(() => report(type, data, sent));
      // Handled where it is awaited (`applied`); until then a refusal must not count as unhandled.
      applied.catch(() => undefined);
      last = applied;
      // The one before refused: its refusal, here.
      await previous;
      await Promise.race([
        onItsWay,
        applied.then(
          () => undefined,
          () => undefined,
        ),
      ]);
    },
    applied: () => last,
  };
}

/**
 * What `work` comes to, once the last report it sent was applied: its outcome, or what it threw — unless
 * that report was refused, which comes first (it would have stopped the work before the work got there).
 */
export async function afterReports<T>(reports: ReportsInOrder, work: Promise<T>): Promise<T> {
  let outcome: T;
  try {
    outcome = await work;
  } catch (error) {
    await reports.applied();
    throw error;
  }
  await reports.applied();
  return outcome;
}
