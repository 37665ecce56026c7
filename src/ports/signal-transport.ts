import type { SignalParty } from '../core/resolve-party.js';
import type { SentFact } from '../core/schema/delivery.js';
import type { SignalBox, SignalMessage, SignalType } from '../core/schema/signal.js';
import type { Capability } from './capability.js';
import type { SignalArchive } from './signal-archive.js';
import type { StuckSignalCensus } from './stuck-signal-census.js';

/**
 * The signal transport port: how signals travel between the parties of a federation and how a party
 * consumes its inbox. Everything above it (actors, launch, monitor, chat, the CLI) speaks only this
 * contract; `file-signal-v1` (src/adapters/file) is one adapter, a message store such as NATS JetStream
 * another. The contract is stated once, as executable tests, in test/conformance/.
 *
 * Every operation is asynchronous, since a network store cannot answer synchronously. Nothing here is a
 * path: an adapter names a stored signal by its own `file` handle and gives a `path` only to show people.
 */

/**
 * A valid signal of a box. In an inbox, `acknowledged`/`acknowledged_at` reflect its acknowledgment as
 * the transport records it (whatever the sender wrote there is replaced). Entries handed out by a box
 * may be frozen and shared between its reads: never mutate one.
 */
export interface SignalEntry {
  /** The adapter's handle of the stored signal, unique within the box (file-signal-v1: the file name). */
  file: string;
  /** Where the signal is, to show to a person (file-signal-v1: the file's path). */
  path: string;
  message: SignalMessage;
}

/** Something stored in a box that is not a usable signal (or acknowledgment): reported, never deleted or skipped silently. */
export interface InvalidSignalFile {
  /** The adapter's handle of the entry. */
  file: string;
  /** Where it is, to show to a person. */
  path: string;
  reason: string;
  /**
   * Nothing final is known about the entry yet (it could not be read, or a writer may still be filling it
   * in): it is read again on the next poll, and consumers must not quarantine it.
   */
  retryable?: boolean;
  /** Not a stored entry the transport can move (file-signal-v1: a directory or FIFO named like a signal, not like an ack): reported, never moved. */
  special?: boolean;
}

export interface SignalReadResult {
  /** In inbox order: by timestamp, then handle. */
  signals: SignalEntry[];
  invalid: InvalidSignalFile[];
}

export interface SendRoute {
  from: SignalParty;
  to: SignalParty;
}

export interface TransportWriteOptions {
  /** Survive a power loss before the call returns (default true); false is for tests and benchmarks. */
  durable?: boolean;
}

export interface TransportSendOptions extends TransportWriteOptions {
  /**
   * The caller chose the message id (a retry must not deliver twice): a signal with this id already
   * stored is not delivered again (a missing outbox copy is completed), concurrent sends with the id
   * deliver once, and the same id on different content is refused (`SIGNAL_ID_REUSED`).
   */
  idempotent?: boolean;
  /**
   * With `idempotent`: this send claimed the id (its `sent` delivery fact is new). The only copy there can
   * already be is then a concurrent retry's, stored under this message's timestamp (CONCURRENT_SEND_MS in
   * src/core/schema/delivery.ts): a file transport looks at those names only, not at the whole box
   * (which grows with the federation's history) — unless it gets to the copies late.
   */
  claimed?: boolean;
  /**
   * With `idempotent`: when the id was first claimed (its `sent` fact's timestamp). A retry's copies were
   * most likely stored then, so a file transport looks at that instant's names first, and searches every
   * signal of the type and subject (which grow with the federation's history) only when they are not there.
   */
  firstSentAt?: string;
}

export interface SentSignal {
  /** The message as stored (for an idempotent retry: the one stored first). */
  message: SignalMessage;
  /** Handle of the recipient's inbox copy. */
  file: string;
  /** Where the inbox copy and the sender's outbox copy are, to show to a person. */
  inboxPath: string;
  outboxPath: string;
  /** False when an earlier send with the same id had already delivered it: nothing new reached the inbox. */
  delivered: boolean;
}

export interface AcknowledgeOptions extends TransportWriteOptions {
  now?: () => Date;
}

export interface AckResult {
  /** The signal, showing `acknowledged: true` and the time of its first acknowledgment. */
  signal: SignalEntry;
  /** Where the acknowledgment is recorded, to show to a person. */
  ackPath: string;
  /** True when it had been acknowledged before; the first acknowledgment time is kept. */
  alreadyAcknowledged: boolean;
  /** An unusable ack (garbage, empty, not a file) that was in the way, moved to quarantine first. */
  quarantinedAck?: QuarantineResult & { reason: string };
}

export interface AcknowledgeBatch {
  acknowledged: AckResult[];
  /** Signals whose acknowledgment could not be recorded (e.g. its slot is taken by something that is not an ack). */
  failed: { signal: SignalEntry; error: Error }[];
}

export interface QuarantineOptions extends TransportWriteOptions {
  now?: () => Date;
}

export interface QuarantineResult {
  /** Where the entry is now, and the record of why, to show to a person. */
  path: string;
  reasonPath: string;
}

/** What a box looked up by a handle or a location a person typed holds there. */
export type BoxLookup = { signal: SignalEntry } | { invalid: InvalidSignalFile } | undefined;

export interface ReadBoxOptions {
  /**
   * Re-check entries already seen (file-signal-v1: stat every file), to notice a change made in place by
   * something other than fed. Without it an adapter may trust what it read before.
   */
  verify?: boolean;
}

export interface PendingBatchOptions extends ReadBoxOptions {
  /** About how many signals a batch has (default 256); an adapter may exceed it to keep the signals of one instant together. */
  batchSize?: number;
  /**
   * Only signals of these types are wanted: an adapter may leave the others unread (file-signal-v1 knows a
   * signal's type from its name), so a reader that wants a box's few questions does not parse its reports.
   */
  types?: readonly SignalType[];
  /**
   * For a reader that only shows what is pending (`fed team show`), never consumes it: an adapter may take
   * an acknowledgment it lists as valid without reading it, as the monitor's census does — a long-lived
   * inbox holds one per signal of its history.
   */
  trustAcks?: boolean;
}

export interface WatchOptions {
  /** Stops the watch; the iteration then ends normally. */
  signal?: AbortSignal;
  /** How often the watch re-checks the whole box, whatever its fast path says (default 1 000 ms). */
  rescanMs?: number;
  /** Signals already in the box when the watch starts: `none` (default), `unacknowledged` or `all`. */
  backlog?: 'none' | 'unacknowledged' | 'all';
  /** Told once about each invalid entry (again if its reason changes); such entries are never yielded. */
  onInvalid?: (file: InvalidSignalFile) => void;
  /** Use the adapter's push fast path (default true); off, only the periodic re-check finds signals — tests use it to prove that suffices. */
  fastPath?: boolean;
}

/** Signals of a box as they arrive, each once. */
export interface SignalSubscription extends AsyncIterable<SignalEntry> {
  /** Where the watched box is, to show to a person. */
  readonly location: string;
  /** Stop watching; a pending `next()` resolves as done. Idempotent. */
  close(): void;
  readonly closed: boolean;
}

/** One party's outbox: the record copies of what it sent. */
export interface SignalOutbox {
  readonly party: string;
  /** Where the box is, to show to a person. */
  readonly location: string;
  list(options?: ReadBoxOptions): Promise<SignalReadResult>;
}

/** What a signal's sent fact tells where its inbox copy is (file-signal-v1: the name it was published under). */
export type FindHint = Pick<SentFact, 'timestamp' | 'type' | 'subject'>;

/**
 * One party's inbox, opened for reading and consuming. An inbox object may keep what it read, so reading
 * it again costs only what changed since: keep one per consumer.
 */
export interface SignalInbox {
  readonly party: string;
  /** Where the box is, to show to a person. */
  readonly location: string;
  /** Every valid signal in inbox order, each with its acknowledgment, and every invalid entry. */
  list(options?: ReadBoxOptions): Promise<SignalReadResult>;
  /** The unacknowledged signals in inbox order, and every invalid entry (filters never hide those). */
  pending(options?: ReadBoxOptions): Promise<SignalReadResult>;
  /**
   * The unacknowledged signals a batch at a time, for a consumer that must not hold a huge inbox at once:
   * across the batches of one iteration every signal pending when it started comes once, in inbox order,
   * none skipped. Each batch carries the invalid entries found while reading it (each reported once per
   * iteration). A signal that arrives or is acknowledged during the iteration may or may not be in it.
   */
  pendingBatches(options?: PendingBatchOptions): AsyncIterable<SignalReadResult>;
  /**
   * The stored signals carrying `id`. With `hint` (the signal's sent fact) an adapter goes straight to the
   * copy the send stored, at a cost that does not grow with the inbox, and returns that copy once it has
   * checked it carries the id; without a hint, or when the hint leads nowhere, it searches the whole inbox
   * and returns every copy (one made by hand is still the same signal).
   */
  find(id: string, hint?: FindHint): Promise<SignalEntry[]>;
  /**
   * The entry a person named by its handle or by the location this inbox showed for it. A name that
   * cannot denote an entry of this inbox (another box's path) is refused with `UNKNOWN_SIGNAL`.
   */
  lookup(name: string): Promise<BoxLookup>;
  /**
   * Record the acknowledgment of each signal. Idempotent: acknowledging again keeps the first time, and
   * concurrent acknowledgers agree on one. One that cannot be recorded is reported in `failed` and does
   * not stop the others.
   */
  acknowledge(signals: readonly SignalEntry[], options?: AcknowledgeOptions): Promise<AcknowledgeBatch>;
  /** Take an invalid entry out of the inbox without ever deleting it, with the reason kept beside it. */
  quarantine(file: InvalidSignalFile, options?: QuarantineOptions): Promise<QuarantineResult>;
  /**
   * Give back quarantined entries that have become valid signals since (file-signal-v1: a foreign writer
   * that was still filling a file in place); returns where they are now. Adapters without such writers return [].
   */
  reclaim(options?: TransportWriteOptions): Promise<string[]>;
  /** New signals as they arrive (a fast path such as fs.watch, backed by a periodic full re-check). */
  watch(options?: WatchOptions): SignalSubscription;
  /**
   * Told (`onArrival`) as soon as a signal may have arrived, by the arrival itself (file-signal-v1: the
   * directory's change event naming a signal file; JetStream: the stored message) — nothing is read or
   * kept, for a consumer that reads the inbox itself. Told once when the watch is live as well (a signal
   * may have arrived before it). Not every arrival is guaranteed to be told (a watch limit, a reconnect):
   * the consumer backs it up with a periodic read. Returns the stop.
   */
  onArrival(onArrival: () => void, onError: (error: Error) => void): () => void;
}

/** Signal counts of one box. */
export interface SignalCounts {
  total: number;
  unacknowledged: number;
}

/** Counts of one party's boxes; an outbox signal is unacknowledged until every recipient copy is acknowledged. */
export interface PartyCensus {
  inbox: SignalCounts;
  outbox: SignalCounts;
  /**
   * Why a box of the party could not be counted (file-signal-v1: a file where its folder, or one above it,
   * belongs), what and where and what to do; that box then counts as empty. The party's own problem: the
   * census of the others goes on.
   */
  unreadable?: string;
}

export interface SignalTransport {
  /** The transport protocol, e.g. `file-signal-v1`. */
  readonly protocol: string;
  /**
   * Deliver `message` (already validated) to the recipient's inbox, then record a copy in the sender's
   * outbox. The inbox copy is complete when it appears, and never replaces another signal, even one with
   * the same second, type and subject.
   */
  send(message: SignalMessage, route: SendRoute, options?: TransportSendOptions): Promise<SentSignal>;
  /**
   * `send` in two steps: first what a send along `route` would refuse for a reason the caller can fix is
   * checked (file-signal-v1: the recipient's workspace and inbox, the sender's outbox — missing, outside the
   * root, through a link, a file where a box belongs), then the returned send delivers along it as `send`
   * does. A caller that writes something of its own for a send (its id claim) prepares before that write, so
   * a refused send leaves no trace; the checks are not repeated by the send.
   */
  prepareSend(
    route: SendRoute,
    options?: TransportWriteOptions,
  ): Promise<(message: SignalMessage, options?: TransportSendOptions) => Promise<SentSignal>>;
  inbox(party: SignalParty, options?: InboxOptions): SignalInbox;
  outbox(party: SignalParty): SignalOutbox;
  /** Create whatever a party needs before its first signal (file-signal-v1: its two box folders). Idempotent. */
  provision(party: SignalParty, options?: TransportWriteOptions): Promise<void>;
  /** Counts for the monitor from cheap metadata (never every signal body), keyed by party id. */
  census(parties: readonly SignalParty[]): Promise<Map<string, PartyCensus>>;
  /** Done signals moved out of the live boxes, and found there again (src/ports/signal-archive.ts). */
  readonly archive: Capability<SignalArchive>;
  /** The signals that may be stuck, chosen without reading every one (src/ports/stuck-signal-census.ts). */
  readonly stuckCensus: Capability<StuckSignalCensus>;
  /**
   * Optional: the page's valid signals across these boxes, newest first (timestamp, then id, both
   * descending), reading little more than the page's signals however many the boxes hold (file-signal-v1:
   * a signal's name starts with its second). Without it a reader lists the boxes.
   */
  newest?(
    /** The boxes, each a party's inbox or outbox. */
    boxes: ReadonlyArray<{ party: SignalParty; box: SignalBox }>,
    /**
     * `before`: only signals before this place (the last of the previous page). `types`: only signals of
     * these types are wanted — an adapter may leave the others unread (file-signal-v1 knows a signal's type
     * from its name) and may still return some, which the caller filters out.
     */
    page: { before?: { timestamp: string; id: string }; limit: number; types?: readonly SignalType[] },
  ): Promise<Array<{ entry: SignalEntry; /** Which of `boxes` holds it (its index). */ box: number }>>;
}

export interface InboxOptions {
  /**
   * An invalid entry that changed less than this long ago may still be being written: it is reported as
   * retryable until it has been still this long (default 2 s).
   */
  settleMs?: number;
}
