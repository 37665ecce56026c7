import { watch, type FSWatcher } from 'node:fs';
import type { SignalSubscription, WatchOptions } from '../../../ports/signal-transport.js';
import type { BoxExpectation } from '../../../core/schema/judge-signal.js';
import { SignalBoxReader } from './read-signals.js';
import { type InvalidSignalFile, type SignalEntry } from '../../../ports/signal-transport.js';

export interface WatchSignalsOptions extends WatchOptions {
  /** Use fs.watch (default: `fastPath`, true). Off, only the rescan (every `rescanMs`, default 1 000 ms) finds signals. */
  fsWatch?: boolean;
}

/** Signals of a box as they arrive, each once, in timestamp order within a batch (the transport port's subscription). */

/**
 * Every this-many rescans also stats each file, to notice a file edited in place by something other
 * than fed (fed never rewrites a published file). Statting a 10 000-signal inbox costs ~100 ms, too much
 * to do every second.
 */
const VERIFY_EVERY_RESCANS = 30;

export function watchSignalBox(
  dir: string,
  expect: BoxExpectation,
  options: WatchSignalsOptions = {},
): SignalSubscription {
  return new BoxWatch(dir, expect, options);
}

class BoxWatch implements SignalSubscription {
  readonly location: string;
  private readonly reader: SignalBoxReader;
  private readonly options: WatchSignalsOptions;
  /** Files already yielded (or skipped as backlog) that are still in the box. */
  private seen = new Set<string>();
  private readonly invalidReported = new Map<string, string>();
  /** Names fs.watch reported since the last check; `undefined` in it means "some name": list the box. */
  private readonly changedNames = new Set<string | undefined>();
  private readonly queue: SignalEntry[] = [];
  private waiter:
    { resolve: (result: IteratorResult<SignalEntry>) => void; reject: (error: unknown) => void } | undefined;
  private failure: unknown;
  private watcher: FSWatcher | undefined;
  private readonly timer: NodeJS.Timeout;
  private pollScheduled = false;
  private rescans = 0;
  private isClosed = false;
  private readonly onAbort = () => this.close();

  constructor(dir: string, expect: BoxExpectation, options: WatchSignalsOptions) {
    this.location = dir;
    this.reader = new SignalBoxReader(dir, expect);
    this.options = options;
    // Watch before the first read, so a signal arriving in between is not left to the next rescan.
    if (options.fsWatch ?? options.fastPath ?? true) {
      try {
        this.watcher = watch(dir, { persistent: true }, (_event, name) => this.noteChange(name ?? undefined));
        // Losing the fast path is not fatal: the rescan still finds everything.
        this.watcher.on('error', () => this.stopFsWatch());
      } catch {
        this.watcher = undefined;
      }
    }
    const backlog = options.backlog ?? 'none';
    const initial = this.reader.read();
    for (const entry of initial.signals) {
      const wanted = backlog === 'all' || (backlog === 'unacknowledged' && !entry.message.acknowledged);
      if (wanted) this.queue.push(entry);
      this.seen.add(entry.file);
    }
    this.reportInvalid(initial.invalid, true);
    this.timer = setInterval(() => this.poll(++this.rescans % VERIFY_EVERY_RESCANS === 0), options.rescanMs ?? 1_000);
    if (options.signal?.aborted) this.close();
    else options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get closed(): boolean {
    return this.isClosed;
  }

  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.stopFsWatch();
    clearInterval(this.timer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.settle();
  }

  [Symbol.asyncIterator](): AsyncIterator<SignalEntry> {
    return {
      next: () =>
        new Promise<IteratorResult<SignalEntry>>((resolve, reject) => {
          this.waiter = { resolve, reject };
          this.settle();
        }),
      return: () => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  /**
   * fs.watch names the entry that changed, so the fast path looks at just those files (its cost does
   * not grow with the inbox); the several events of one publish (temp file, link, unlink) are folded
   * into one check.
   */
  private noteChange(name: string | undefined): void {
    if (this.isClosed) return;
    this.changedNames.add(name);
    if (this.pollScheduled) return;
    this.pollScheduled = true;
    setImmediate(() => {
      this.pollScheduled = false;
      const names = [...this.changedNames];
      this.changedNames.clear();
      if (names.includes(undefined)) this.poll(false);
      else this.checkNames(names as string[]);
    });
  }

  private checkNames(names: readonly string[]): void {
    this.guard(() => {
      const { signals, invalid } = this.reader.readNames(names);
      const valid = new Set(signals.map((entry) => entry.file));
      for (const entry of signals) {
        if (!this.seen.has(entry.file)) this.queue.push(entry);
        this.seen.add(entry.file);
      }
      // A name that left the box (quarantined, moved) and comes back later is a new signal.
      for (const name of names) if (!valid.has(name)) this.seen.delete(name);
      this.reportInvalid(invalid, false);
    });
  }

  /** The full check: list the box (and stat every file when verifying). */
  private poll(verify: boolean): void {
    this.guard(() => {
      const { signals, invalid } = this.reader.read({ verify });
      const present = new Set<string>();
      for (const entry of signals) {
        present.add(entry.file);
        if (!this.seen.has(entry.file)) this.queue.push(entry);
      }
      this.seen = present;
      this.reportInvalid(invalid, true);
    });
  }

  private guard(check: () => void): void {
    if (this.isClosed) return;
    try {
      check();
    } catch (error) {
      this.failure = error;
      this.close();
    }
    this.settle();
  }

  /** Tell about each invalid file once (again if its reason changes); `complete` lists are the whole box. */
  private reportInvalid(invalid: readonly InvalidSignalFile[], complete: boolean): void {
    for (const file of invalid) {
      if (this.invalidReported.get(file.file) !== file.reason) this.options.onInvalid?.(file);
    }
    if (complete) this.invalidReported.clear();
    for (const file of invalid) this.invalidReported.set(file.file, file.reason);
  }

  /** Hand the next queued signal (or the end, or the failure) to a waiting `next()`. */
  private settle(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    const entry = this.queue.shift();
    if (entry) {
      this.waiter = undefined;
      waiter.resolve({ value: entry, done: false });
    } else if (this.failure !== undefined) {
      this.waiter = undefined;
      waiter.reject(this.failure);
    } else if (this.isClosed) {
      this.waiter = undefined;
      waiter.resolve({ value: undefined, done: true });
    }
  }

  private stopFsWatch(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
}
