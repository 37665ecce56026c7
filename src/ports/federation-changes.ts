/**
 * The change feed port: that something in the federation changed, as soon as the backend can tell —
 * another terminal's `fed team pause`, an agent's `fed event`, a signal sent or acknowledged, a run that
 * ended, on this machine or (JetStream) another. A long-running server (the dashboard) keeps one watch for
 * its whole life and re-reads what a change names; a change says where, never what the new value is, so
 * a listener that misses one loses nothing by reading again. Nothing here polls per listener.
 */
export type FederationChange =
  /** The registry: teams onboarded, removed, paused, resumed, archived. */
  | { scope: 'registry' }
  /** The federation journal gained records (`.fed/journal.jsonl`, or its stream). */
  | { scope: 'journal' }
  /** A team's lifecycle (snapshot or journal), boxes, runs or deliverable. */
  | { scope: 'team'; team: string; what: 'lifecycle' | 'inbox' | 'outbox' | 'runs' | 'deliverable' }
  /** meta's own boxes. */
  | { scope: 'meta'; what: 'inbox' | 'outbox' }
  /** Delivery facts: a signal was read, answered, escalated or found undeliverable. */
  | { scope: 'delivery' }
  /**
   * The federation's own files at its root, whatever the backend: the plan (`.fed/plan.json`), the
   * federation report (config `federationReport`) and the telemetry collector's state.
   */
  | { scope: 'federation' }
  /**
   * The hosts serving a federation shared across machines: one started, stopped, was lost or came back, or
   * changed its capacity, agents or version. Told by the dashboard's server from the hosts' directory
   * (src/apps/ui/live/host-changes.ts), not by a backend's feed: a heartbeat alone is no change.
   */
  | { scope: 'hosts' }
  /** Anything may have changed (a reconnect: what happened while disconnected is not known): read everything again. */
  | { scope: 'all' };

export interface ChangeWatch {
  /**
   * Resolves once every change made from then on is heard (a network backend subscribes asynchronously);
   * rejects when the watch could not start (onError hears it too).
   */
  readonly ready: Promise<void>;
  /** Stop watching; resolves once every watcher the backend opened for it is closed. */
  close(): Promise<void>;
}

export interface FederationChanges {
  /**
   * Call `listener` for every change from now on (bursts may be coalesced, never dropped entirely: the last
   * change of a burst is always told). Teams onboarded later are watched as they appear. `onError` hears
   * a watcher that broke (e.g. the JetStream connection closed for good); the watch then ends.
   */
  watch(listener: (change: FederationChange) => void, onError?: (error: Error) => void): ChangeWatch;
}
