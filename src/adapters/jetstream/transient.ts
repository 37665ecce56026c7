import { setTimeout as sleep } from 'node:timers/promises';

/** "Not now", raised by the adapter itself: e.g. a read whose consumer was lost with its server. */
export class TransientJetStreamError extends Error {
  override name = 'TransientJetStreamError';
}

/**
 * Errors that mean "not now" rather than "no": a request lost while the client reconnects after a server
 * restart (measured: a request made before the reconnect completes times out), no responders while a
 * clustered stream elects a leader, JetStream briefly unavailable. Everything else is an answer.
 */
export function isTransientJetStreamError(error: unknown): boolean {
  const name = (error as Error | undefined)?.name;
  if (name === 'TimeoutError' || name === 'NoRespondersError' || name === 'JetStreamNotEnabled') return true;
  if (name === 'ConnectionError' || name === 'RequestError' || name === 'TransientJetStreamError') return true;
  const message = String((error as Error | undefined)?.message ?? '');
  // 10008: JetStream system temporarily unavailable; 503: no responders, as a JetStream status.
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 10008 || code === 503 || /temporarily unavailable|no responders/i.test(message);
}

/** How long an operation keeps retrying through a reconnect or a leader election before it gives up. */
export const TRANSIENT_DEADLINE_MS = 60_000;

/**
 * Run `op` until it answers or fails for a reason that is not transient, for at most `deadlineMs`.
 * `op` must be safe to repeat: publishes carry a message id (server-side dedupe), compare-and-swap
 * writes check what they find when a retried attempt reports a conflict.
 */
export async function retryTransient<T>(op: (attempt: number) => Promise<T>, deadlineMs = TRANSIENT_DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await op(attempt);
    } catch (error) {
      if (!isTransientJetStreamError(error) || Date.now() > deadline) throw error;
      await sleep(Math.min(1_000, 50 * attempt));
    }
  }
}
