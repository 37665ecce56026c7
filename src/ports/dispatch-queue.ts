/**
 * The pending dispatches of unplaced teams (registry `host` "*": any host may run them), shared by every
 * host's server on a backend shared across machines. One message per pending piece of a team's work; a
 * server with free capacity takes one, and only it dispatches that work until it says the work is done,
 * gives it back, or goes silent for longer than the acknowledgement wait (it died): then another takes it.
 */
export interface DispatchQueue {
  /** Where the queue is, for messages. */
  readonly location: string;
  /**
   * Queue `team`'s work named `key` (its kind and when it arrived). The same work offered again (by
   * another host, or twice) is queued once; while a team has work queued or taken, nothing more is queued
   * for it: its taker offers what is left when its launch ends.
   */
  offer(team: string, key: string): Promise<void>;
  /**
   * Take the oldest pending work, waiting up to `waitMs` for one; not acknowledged within `ackWaitMs`
   * (no `working()` since), it is given to another taker.
   */
  take(waitMs: number, ackWaitMs: number): Promise<TakenWork | undefined>;
}

export interface TakenWork {
  readonly team: string;
  readonly key: string;
  /** Still at it: the acknowledgement wait starts again. */
  working(): void;
  /** Dispatched and ended (or nothing left to do): it leaves the queue. */
  done(): Promise<void>;
  /** Given back, to be taken again (by any host) after `delayMs`. */
  retry(delayMs: number): void;
}
