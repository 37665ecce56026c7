/**
 * The last `keep` events of a hub, numbered from 1: what a client that reconnects with Last-Event-ID
 * missed. A fixed array indexed by seq, so keeping 10,000 costs no copying however long the server runs.
 */
export class EventRing<T> {
  private readonly slots: T[] = [];
  /** The seq of the newest event (0 before the first). */
  last = 0;

  constructor(private readonly keep: number) {
    if (!Number.isInteger(keep) || keep < 1) throw new RangeError(`keep must be a positive integer, got ${keep}`);
  }

  /** Store the next event (seq `last + 1`). */
  push(value: T): void {
    this.last += 1;
    this.slots[this.last % this.keep] = value;
  }

  /**
   * The events after `seq`, oldest first; undefined when they cannot all be given: `seq` is not a number,
   * lies in the future (another hub's, e.g. before a restart), or is older than what is kept.
   */
  after(seq: number): T[] | undefined {
    if (!Number.isInteger(seq) || seq < 0 || seq > this.last) return undefined;
    const oldest = Math.max(1, this.last - this.keep + 1);
    if (seq + 1 < oldest) return undefined;
    const missed: T[] = [];
    for (let each = seq + 1; each <= this.last; each++) missed.push(this.slots[each % this.keep]!);
    return missed;
  }
}
