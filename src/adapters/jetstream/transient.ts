import { setTimeout as sleep } from 'node:timers/promises';
import { BackendUnavailableError } from '../../core/errors.js';
import {
  isJetStreamNotEnabled,
  isNatsError,
  jetStreamApiCode,
  JetStreamApiCode,
  jetStreamStatus,
  NatsErrorName,
} from './jetstream-errors.js';

/** "Not now", raised by the adapter itself: e.g. a read whose consumer was lost with its server. */
export class TransientJetStreamError extends Error {
  override name = 'TransientJetStreamError';
}

/**
 * Errors that mean "not now" rather than "no": a request lost while the client reconnects after a server
 * restart (measured: a request made before the reconnect completes times out), no responders while a
 * clustered stream elects a leader, JetStream briefly unavailable. Everything else is an answer — a
 * closed or draining connection too (ClosedConnectionError, DrainingConnectionError): that is this
 * process closing its backend, and no retry brings it back.
 */
export function isTransientJetStreamError(error: unknown): boolean {
  if (error instanceof TransientJetStreamError) return true;
  // No reply in time: the request (or its reply) was lost with a server or a reconnect.
  if (isNatsError(error, NatsErrorName.Timeout)) return true;
  // Failed before a reply: "connection disconnected", or nobody serving the subject yet (a NoRespondersError cause).
  if (isNatsError(error, NatsErrorName.Request) || isNatsError(error, NatsErrorName.NoResponders)) return true;
  // The connection failed; the client reconnects on its own.
  if (isNatsError(error, NatsErrorName.Connection)) return true;
  // A JetStream API request or publish with no responders, which the client reports as JetStream not enabled:
  // the stream's leader is being elected. (A server without JetStream at all is refused when connecting.)
  if (isJetStreamNotEnabled(error)) return true;
  // A status reply 503 "no responders" (direct get, pull consumer).
  if (jetStreamStatus(error) === 503) return true;
  // The API reply JSClusterNotAvailErr: "JetStream system temporarily unavailable".
  return jetStreamApiCode(error) === JetStreamApiCode.ClusterNotAvailable;
}

/** How long an operation keeps retrying through a reconnect or a leader election before it gives up. */
export const TRANSIENT_DEADLINE_MS = 60_000;

/**
 * Run `op` until it answers or fails for a reason that is not transient, for at most `deadlineMs`.
 * `op` must be safe to repeat: publishes carry a message id (server-side dedupe), compare-and-swap
 * writes check what they find when a retried attempt reports a conflict. Still "not now" at the deadline,
 * the broker is taken as gone: a BackendUnavailableError saying so (the client's own error was a bare
 * "timeout", a stack trace from the CLI and no code for an MCP tool's caller), its last error the cause.
 */
export async function retryTransient<T>(
  op: (attempt: number) => Promise<T>,
  deadlineMs = TRANSIENT_DEADLINE_MS,
  /** A refusal the caller knows to be "not now" too, for as long as it says so. */
  alsoRetry?: (error: unknown) => boolean,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await op(attempt);
    } catch (error) {
      const transient = isTransientJetStreamError(error);
      if (!(transient || alsoRetry?.(error))) throw error;
      if (Date.now() > deadline) {
        // A refusal only the caller calls "not now" is the caller's to judge, as it came.
        if (!transient) throw error;
        throw new BackendUnavailableError(
          [],
          `the NATS server has not answered for ${Math.round(deadlineMs / 1000)} s (${(error as Error).message ?? String(error)}): it is down or cannot be reached — start it again (or mend the network), then run this again`,
          error,
        );
      }
      await sleep(Math.min(1_000, 50 * attempt));
    }
  }
}
