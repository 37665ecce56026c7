/**
 * Beats land one heartbeat apart; an answer more than half a heartbeat later than that means the store
 * (or this server: a blocked event loop, a write held through a reconnect) was away meanwhile.
 */
export const BREAK_HEARTBEATS = 1.5;

/**
 * Since when a server has been in unbroken touch with the federation's store, as its own requests show:
 * its heartbeat's write and its read of the hosts, each heartbeat. A server judges other hosts lost only
 * on silence it could have heard (hostState's `watchingSince`): while it could not reach the store,
 * neither, perhaps, could they.
 */
export class StoreContact {
  private readonly breakMs: number;
  private lastAnswer: number | undefined;
  private unbrokenSince: number | undefined;

  /** `heartbeatMs`: how often the server asks the store (its heartbeat). */
  constructor(heartbeatMs: number) {
    this.breakMs = heartbeatMs * BREAK_HEARTBEATS;
  }

  /** The store answered a request of this server at `at`: touch goes on, or starts again after a break. */
  answered(at: Date): void {
    const ms = at.getTime();
    if (this.lastAnswer === undefined || ms - this.lastAnswer > this.breakMs) this.unbrokenSince = ms;
    this.lastAnswer = ms;
  }

  /** A request of this server failed: no touch until the store answers again. */
  failed(): void {
    this.lastAnswer = undefined;
    this.unbrokenSince = undefined;
  }

  /** Since when the touch has been unbroken up to `now`; `now` itself when it is broken now (nothing heard counts). */
  since(now: Date): Date {
    if (this.lastAnswer === undefined || now.getTime() - this.lastAnswer > this.breakMs) return now;
    return new Date(this.unbrokenSince!);
  }
}
