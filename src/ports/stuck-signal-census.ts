import type { DeadlineTable, NextDue } from '../core/deadlines.js';
import type { SignalParty } from '../core/resolve-party.js';
import type { PartyCensus, SignalEntry } from './signal-transport.js';

/**
 * The stuck-signal census, a capability of the signal transport (`SignalTransport.stuckCensus`): of every
 * inbox, the signals that may be stuck — overdue, or in an archived team's inbox — chosen from what the
 * transport knows of them without reading them (file-signal-v1: a signal's name carries its type and
 * second, an ack file beside it its acknowledgment), so a monitoring cycle over a thousand inboxes reads
 * only a few signals. The engine judges each candidate by its delivery facts (src/engine/delivery/stuck-signals.ts).
 * Without it, every signal of every inbox is a candidate, read through the transport.
 */
export interface StuckSignalCensus {
  /**
   * The parties' inbox signals that may be stuck, read: in an archived team's inbox every one not
   * acknowledged; elsewhere one whose type has a deadline (`search.deadlines`) that has passed by `now`
   * without what it asks for (an acknowledgment; a question's answer is the engine's to check), and any the
   * transport knows nothing of without reading it. In party order, each inbox's in the transport's order.
   * Invalid entries are left out: the consumer and `fed signal list` report them.
   */
  candidates(parties: readonly SignalParty[], search: StuckSignalSearch): Promise<StuckCandidate[]>;
  /**
   * `SignalTransport.census` of the parties and the `candidates` from the same look at each inbox: a
   * monitoring cycle looks once. The candidates are read when asked for.
   */
  censusWithCandidates(parties: readonly SignalParty[], search: StuckSignalSearch): Promise<CensusWithCandidates>;
}

export interface StuckSignalSearch {
  deadlines: DeadlineTable;
  now: Date;
  /** Given: set to the earliest deadline still ahead among the signals looked at. */
  next?: NextDue;
}

/** A signal that may be stuck. */
export interface StuckCandidate {
  entry: SignalEntry;
  /** As the transport knows it (file-signal-v1: its ack file is there). */
  acknowledged: boolean;
  /** Its recipient, whose inbox it is in, is an archived team. */
  recipientArchived: boolean;
}

export interface CensusWithCandidates {
  census: Map<string, PartyCensus>;
  /** The stuck-signal candidates chosen as the census looked at each inbox, read now. */
  candidates(): Promise<StuckCandidate[]>;
  /**
   * The candidates of one party's inbox, chosen as the census looked at it (by the census's `now`), read
   * now, and the earliest deadline still ahead there noted in `search.next`: what `candidates([party],
   * search)` gives, without looking at the inbox again. Undefined when the census did not look at it.
   */
  candidatesOf(party: SignalParty, search: StuckSignalSearch): Promise<StuckCandidate[] | undefined>;
}
