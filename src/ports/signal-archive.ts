import type { SignalParty } from '../core/resolve-party.js';
import type { SignalBox } from '../core/schema/signal.js';
import type { FindHint, SignalEntry, SignalReadResult, TransportWriteOptions } from './signal-transport.js';

/**
 * Archiving, a capability of the signal transport (`SignalTransport.archive`): signals that are done move
 * out of the live boxes into an archive beside them, so the actors, the monitor and `fed signal list`
 * read only what is live, however long the federation's history — and `fed signal list --all` and
 * `fed signal show` still find them. Nothing archived is ever deleted. file-signal-v1 offers it (each
 * box's `archive/` folder); a message store that keeps every signal in its box with its delivery state
 * (JetStream) does not.
 */
export interface SignalArchive {
  /**
   * The archive of a party's boxes. A party whose boxes fed may not use (its workspace refused) is
   * refused here, with the FedError that says why.
   */
  of(party: SignalParty): PartyArchive;
}

export interface ArchiveBoxOptions extends TransportWriteOptions {
  /** Only signals sent at or before this time (milliseconds since the epoch) are looked at. */
  sentBy: number;
  /**
   * Whether a signal is done — archived — or stays (the engine decides, from its acknowledgment and
   * delivery facts). Asked only of valid signals sent by `sentBy`; an inbox signal carries its acknowledgment.
   */
  done(entry: SignalEntry): Promise<boolean>;
}

/** What archiving a box did. */
export interface BoxArchiveCount {
  /** Signals moved into the archive by this call. */
  archived: number;
  /** Signal entries left in the live box (invalid ones included). */
  kept: number;
}

/** One party's archive, beside its two boxes. */
export interface PartyArchive {
  /**
   * Move the signals of `box` that are done into the archive, each inbox signal with its acknowledgment.
   * A crash part way leaves every signal in the box or the archive (never in neither), and the next call
   * finishes the move.
   */
  archive(box: SignalBox, options: ArchiveBoxOptions): Promise<BoxArchiveCount>;
  /** The valid signals archived from `box` (an inbox signal with its acknowledgment) and every invalid entry there. */
  list(box: SignalBox): Promise<SignalReadResult>;
  /**
   * The archived signal carrying `id` (in lower case) of `box`. With `hint` (its sent fact) an adapter may
   * read only the entries stored for the signal's type and subject.
   */
  find(box: SignalBox, id: string, hint?: FindHint): Promise<SignalEntry | undefined>;
  /** The signal archived from `box` under `handle` (a live copy's handle: the copy it had there), if it carries `id`. */
  lookup(box: SignalBox, handle: string, id: string): Promise<SignalEntry | undefined>;
}
