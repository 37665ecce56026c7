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
  /** The subset without an ack file. */
  unacknowledged: Set<string>;
}

export function takeCensus(dir: string): BoxCensus {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { signals: [], unacknowledged: new Set() };
    throw error;
  }
  // One pass over the names. An ack is kept as the name of its signal, cut from its own name: a slice is
  // looked up as it is, where `<signal>.ack` built per signal would be copied whole to be looked up.
  const acked = new Set<string>();
  const signals: string[] = [];
  for (const name of names) {
    if (isAckFileName(name)) acked.add(name.slice(0, -ACK_FILE_SUFFIX.length));
    else if (isSignalFileName(name)) signals.push(name);
  }
  return { signals, unacknowledged: new Set(signals.filter((name) => !acked.has(name))) };
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
    for (const name of box.signals) {
      if (box.unacknowledged.has(name)) acked.set(name, false);
      else if (!acked.has(name)) acked.set(name, true);
    }
    return { total: box.signals.length, unacknowledged: box.unacknowledged.size };
  });
  return new Map(
    parties.map((party, i) => {
      const { signals } = takeCensus(where[i]!.outbox);
      const unacknowledged = signals.filter((name) => !(acked.get(name) ?? false)).length;
      return [party.id, { inbox: inboxes[i]!, outbox: { total: signals.length, unacknowledged } }];
    }),
  );
}
