import { parseDuration } from '../../core/schema/duration.js';
import {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_WORK_ACK_WAIT_MS,
  LOST_AFTER_HEARTBEATS,
  type ServeConfig,
} from '../../core/schema/host.js';
import type { HeardHost } from '../../ports/host-directory.js';
import { BREAK_HEARTBEATS } from './store-contact.js';

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
  return lostAfterOf(serve, host.record.heartbeatMs);
}

const lostAfterOf = (serve: ServeConfig | undefined, everyMs: number) =>
  (serve?.hostLostAfter && parseDuration(serve.hostLostAfter)) || LOST_AFTER_HEARTBEATS * everyMs;

/** Room left after an agent's stop for timers firing late: the fence must fall strictly before a loss. */
const FENCE_MARGIN_MS = 1_000;

/** How long this host may go unheard before the others take it for lost, as it reckons (its config stands for theirs). */
export function ownLostAfterMs(serve: ServeConfig | undefined): number {
  return lostAfterOf(serve, heartbeatMs(serve));
}

/**
 * The shortest hostLostAfter that leaves room to fence: the agents' stop (`stopMs`), the margin, and a late
 * heartbeat's time (less, and a store merely slow would stop every agent).
 */
export function leastLostAfterMs(serve: ServeConfig | undefined, stopMs: number): number {
  return stopMs + FENCE_MARGIN_MS + heartbeatMs(serve) * BREAK_HEARTBEATS;
}

/**
 * Fencing: how long after sending its last heartbeat that was written a server goes on with its agents while
 * no later one is written (the store out of its reach). Another host may take it for lost — and run its
 * teams — once it has been unheard for lostAfter, so its agents must be gone before then: stopped
 * (`stopMs`: their grace, then killed), with a margin. Undefined when hostLostAfter leaves no room for that.
 */
export function fenceAfterMs(serve: ServeConfig | undefined, stopMs: number): number | undefined {
  const lostMs = ownLostAfterMs(serve);
  return lostMs > leastLostAfterMs(serve, stopMs) ? lostMs - stopMs - FENCE_MARGIN_MS : undefined;
}

/**
 * The host's state and how long ago it was last heard from (ms), by this machine's clock.
 *
 * `watchingSince`, for a server that acts on a loss (failover): since when it has itself been in unbroken
 * touch with the store (store-contact.ts). A host is then lost only on silence this server could have
 * heard, counted from the later of the host's last heartbeat and that moment. A store no one could reach
 * (a NATS outage) leaves every host's record as old as the outage; the first server back would otherwise
 * take the others for lost before they had reconnected and beaten again, and move their teams away from
 * agents still running there. So after a break each host gets a full lostAfter to be heard from again.
 */
export function hostState(
  serve: ServeConfig | undefined,
  host: HeardHost,
  now: Date,
  watchingSince?: Date,
): { state: HostState; ageMs: number } {
  const ageMs = Math.max(0, now.getTime() - host.heardAt.getTime());
  if (host.record.stoppedAt !== null) return { state: 'stopped', ageMs };
  const silentMs = watchingSince ? Math.min(ageMs, now.getTime() - watchingSince.getTime()) : ageMs;
  return { state: silentMs > lostAfterMs(serve, host) ? 'lost' : 'alive', ageMs };
}
