import { readdirSync } from 'node:fs';
import type { SignalParty } from '../../core/resolve-party.js';
import { workspacePaths } from '../../core/layout.js';
import type { PartyCensus, SignalCounts } from '../../ports/signal-transport.js';
import { ACK_FILE_SUFFIX, isAckFileName, isSignalFileName } from './signals/signal-file-name.js';

/**
 * Signal counts of a box from its file names alone: a monitoring cycle over hundreds of teams with
 * thousands of signals each must not read every signal body. A signal is acknowledged when its
 * `<name>.ack` exists beside it (the ack's content is trusted; `fed signal list` validates it).
 */
export interface BoxCensus {
  /** Signal file names in the box. */
  signals: string[];
  /** Whether each signal (at the same index) has its ack file beside it. */
  acknowledged: boolean[];
  /** How many of them have none. */
  unacknowledged: number;
}

/** The names in a box; none when it does not exist yet. */
function boxNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export function takeCensus(dir: string): BoxCensus {
  // An ack is kept as the name of its signal, cut from its own name: a slice is looked up as it is, where
  // `<signal>.ack` built per signal would be copied whole to be looked up. Each signal is then looked up
  // once, into a flag beside it: no second list or set of the unacknowledged is built.
  const acked = new Set<string>();
  const signals: string[] = [];
  for (const name of boxNames(dir)) {
    if (isAckFileName(name)) acked.add(name.slice(0, -ACK_FILE_SUFFIX.length));
    else if (isSignalFileName(name)) signals.push(name);
  }
  const acknowledged = signals.map((name) => acked.has(name));
  return { signals, acknowledged, unacknowledged: acknowledged.filter((ack) => !ack).length };
}

/** Told each inbox's census as it is taken (the monitor picks its stuck-signal candidates from it). */
export type InboxCensusListener = (party: SignalParty, inbox: string, census: BoxCensus) => void;

/**
 * The census of the parties' boxes (SignalTransport.census), each box listed once. A sent signal's inbox
 * copy normally has the same name as the sender's outbox copy, so an outbox signal's acknowledgment is
 * found without reading its body; a name found in no inbox (or in several, not all acknowledged) counts
 * as unacknowledged: the monitor would rather over-report pending work than hide it.
 */
export function censusOfBoxes(
  root: string,
  parties: readonly SignalParty[],
  onInbox?: InboxCensusListener,
): Map<string, PartyCensus> {
  // Only names are listed, so the location is taken as registered: a team whose workspace is refused
  // elsewhere (missing, outside the root) is still counted, and its health check says what is wrong.
  const where = parties.map((party) => workspacePaths(party.entry?.location ?? root));
  // Per signal name, whether every inbox copy of it is acknowledged. Each box is counted and let go:
  // a thousand teams' listings are never held at once (the dashboard counts them in a long-lived process).
  const acked = new Map<string, boolean>();
  const inboxes = where.map((paths, i): SignalCounts => {
    const box = takeCensus(paths.inbox);
    onInbox?.(parties[i]!, paths.inbox, box);
    box.signals.forEach((name, j) => {
      if (!box.acknowledged[j]) acked.set(name, false);
      else if (!acked.has(name)) acked.set(name, true);
    });
    return { total: box.signals.length, unacknowledged: box.unacknowledged };
  });
  return new Map(
    parties.map((party, i) => {
      // An outbox's own acks mean nothing: its signals are acknowledged in their recipients' inboxes.
      const signals = boxNames(where[i]!.outbox).filter(isSignalFileName);
      const unacknowledged = signals.filter((name) => !(acked.get(name) ?? false)).length;
      return [party.id, { inbox: inboxes[i]!, outbox: { total: signals.length, unacknowledged } }];
    }),
  );
}
