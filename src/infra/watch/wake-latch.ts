/**
 * A wake-up that is never lost: `wake()` ends the `wait()` under way or, when nobody waits (the waiter is
 * busy reading), makes the next `wait()` end at once — what woke it may have come after that read.
 */
export interface WakeLatch {
  wake(): void;
  /** Until the next wake-up, or `timeoutMs` (none: no limit). */
  wait(timeoutMs?: number): Promise<void>;
}

export function wakeLatch(): WakeLatch {
  let waiting: (() => void) | undefined;
  let woken = false;
  const wake = (): void => {
    const resolve = waiting;
    waiting = undefined;
    if (resolve) resolve();
    else woken = true;
  };
  return {
    wake,
    async wait(timeoutMs) {
      if (!woken) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          waiting = resolve;
          if (timeoutMs !== undefined) timer = setTimeout(wake, timeoutMs);
        });
        clearTimeout(timer);
      }
      woken = false;
    },
  };
}
