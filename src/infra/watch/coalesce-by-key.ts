/**
 * Bursts of the same change told once: the first change of a key starts a short timer and the change is
 * told when it fires, with every repeat of the key in between folded into it. The timer is never pushed
 * back, so a key that keeps changing is still told every `windowMs`, and the last change of a burst is
 * always told (it falls inside a window that has yet to fire).
 */
export class CoalesceByKey<T> {
  private readonly pending = new Map<string, { value: T; timer: NodeJS.Timeout }>();

  constructor(
    private readonly windowMs: number,
    private readonly tell: (value: T) => void,
  ) {}

  push(key: string, value: T): void {
    const waiting = this.pending.get(key);
    if (waiting) {
      waiting.value = value;
      return;
    }
    const timer = setTimeout(() => {
      const entry = this.pending.get(key);
      this.pending.delete(key);
      if (entry) this.tell(entry.value);
    }, this.windowMs);
    this.pending.set(key, { value, timer });
  }

  /** Drop what is waiting (the watch closed: nothing is told after it). */
  clear(): void {
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }
}
