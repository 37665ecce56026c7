import { parseDuration } from '../../core/schema/duration.js';
import {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_WORK_ACK_WAIT_MS,
  LOST_AFTER_HEARTBEATS,
  type ServeConfig,
} from '../../core/schema/host.js';
import type { HeardHost } from '../../ports/host-directory.js';

/** A host as the others see it: its server renews its record (alive), stopped on purpose, or went silent (lost). */
export type HostState = 'alive' | 'stopped' | 'lost';

/** How often this machine's server renews its host record (`serve.heartbeat`, default 5 s). */
export function heartbeatMs(serve: ServeConfig | undefined): number {
  return (serve?.heartbeat && parseDuration(serve.heartbeat)) || DEFAULT_HEARTBEAT_MS;
}

/** How long a server that took an unplaced team's work may go silent before another host takes it (`serve.workAckWait`). */
export function workAckWaitMs(serve: ServeConfig | undefined): number {
  return (serve?.workAckWait && parseDuration(serve.workAckWait)) || DEFAULT_WORK_ACK_WAIT_MS;
}

/**
 * How long a host may go unheard before it is lost: `serve.hostLostAfter` of the reader's config, else
 * three of that host's own heartbeats (each server says how often it renews).
 */
export function lostAfterMs(serve: ServeConfig | undefined, host: HeardHost): number {
  return (
    (serve?.hostLostAfter && parseDuration(serve.hostLostAfter)) || LOST_AFTER_HEARTBEATS * host.record.heartbeatMs
  );
}

/** The host's state and how long ago it was last heard from (ms), by this machine's clock. */
export function hostState(
  serve: ServeConfig | undefined,
  host: HeardHost,
  now: Date,
): { state: HostState; ageMs: number } {
  const ageMs = Math.max(0, now.getTime() - host.heardAt.getTime());
  if (host.record.stoppedAt !== null) return { state: 'stopped', ageMs };
  return { state: ageMs > lostAfterMs(serve, host) ? 'lost' : 'alive', ageMs };
}
