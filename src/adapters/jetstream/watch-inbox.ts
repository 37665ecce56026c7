import type { Subscription } from '@nats-io/transport-node';
import type { InvalidSignalFile, SignalEntry, SignalSubscription, WatchOptions } from '../../ports/signal-transport.js';
import type { FederationStreams } from './federation-streams.js';
import type { JetStreamNames } from './names.js';
import { wakeLatch } from '../../infra/watch/wake-latch.js';

/**
 * Watch an inbox: every publish to the inbox subject also reaches a plain NATS subscription, which wakes
 * the watch at once (the fast path, like fs.watch for files); a full re-read every `rescanMs` backs it
 * up, so a wake-up lost in a reconnect only delays a signal. Each signal is yielded once, in inbox order
 * within what one read found.
 */
const FOLLOW_UP_MS = 25;

/** What the watch reads of an inbox (a JetStreamInbox). */
export interface WatchedInbox {
  readonly party: string;
  readonly location: string;
  readNew(afterSeq: number): Promise<{ signals: SignalEntry[]; invalid: InvalidSignalFile[]; lastSeq: number }>;
  storedAtOf(file: string): number;
}

export function watchInbox(
  streams: () => Promise<FederationStreams>,
  names: JetStreamNames,
  inbox: WatchedInbox,
  options: WatchOptions,
): SignalSubscription {
  // "Already in the box when the watch starts" is decided by when the server stored a signal, not by
  // what the first (asynchronous) read finds: a signal sent right after watch() returned is new. Both
  // clocks are read below the millisecond, since a send and a watch often fall in the same one (the
  // server's and this machine's clocks are assumed to agree, as NTP keeps them).
  const startedAt = performance.timeOrigin + performance.now();
  const rescanMs = options.rescanMs ?? 1_000;
  const backlog = options.backlog ?? 'none';
  let subscription: Subscription | undefined;
  let closed = false;
  // A publish heard while the watch was reading is kept, so the next wait ends at once.
  const arrivals = wakeLatch();
  const wakeUp = arrivals.wake;
  const close = () => {
    if (closed) return;
    closed = true;
    subscription?.unsubscribe();
    options.signal?.removeEventListener('abort', close);
    wakeUp();
  };
  if (options.signal?.aborted) close();
  options.signal?.addEventListener('abort', close);

  const told = new Map<string, string>();
  const tell = (bad: InvalidSignalFile) => {
    if (told.get(bad.file) === bad.reason) return;
    told.set(bad.file, bad.reason);
    options.onInvalid?.(bad);
  };

  async function* signals(): AsyncGenerator<SignalEntry> {
    const yielded = new Set<string>();
    const { session } = await streams();
    if (closed) return;
    const live = session.nc.subscribe(names.inboxFilter(inbox.party));
    subscription = live;
    void (async () => {
      for await (const _ of live) wakeUp();
    })();
    // The subscription is live on the server before the first read, so nothing falls between the two.
    await session.nc.flush();
    const first = await inbox.readNew(0);
    first.invalid.forEach(tell);
    let afterSeq = first.lastSeq;
    let followUp = false;
    const already = (entry: SignalEntry) => inbox.storedAtOf(entry.file) < startedAt;
    let batch = first.signals.filter(
      (entry) => !already(entry) || backlog === 'all' || (backlog === 'unacknowledged' && !entry.message.acknowledged),
    );
    for (;;) {
      for (const entry of batch) {
        if (closed) return;
        if (yielded.has(entry.file)) continue;
        yielded.add(entry.file);
        yield entry;
      }
      if (closed) return;
      // A wake-up can overtake the store (a core subscriber may hear of a publish before the stream
      // shows it): after one that found nothing, look again shortly rather than a rescan later.
      await arrivals.wait(followUp ? FOLLOW_UP_MS : rescanMs);
      if (closed) return;
      const fresh = await inbox.readNew(afterSeq);
      fresh.invalid.forEach(tell);
      followUp = fresh.lastSeq === afterSeq && !followUp;
      afterSeq = fresh.lastSeq;
      batch = fresh.signals;
    }
  }

  const iterator = signals();
  return {
    location: inbox.location,
    get closed() {
      return closed;
    },
    close,
    [Symbol.asyncIterator]: () => ({
      next: () => (closed ? Promise.resolve({ done: true, value: undefined }) : iterator.next()),
      return: async () => {
        close();
        return iterator.return(undefined);
      },
    }),
  };
}
