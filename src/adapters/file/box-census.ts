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
  // once, into a flag beside it, and counted in the same pass: no second list or set of the
  // unacknowledged is built. (Plain loops: a monitoring cycle runs these a thousand times each, mostly
  // before V8 has optimised them, and a callback per name or an iterator per box cost twice the time.)
  const names = boxNames(dir);
  const acked = new Set<string>();
  const signals: string[] = [];
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (isAckFileName(name)) acked.add(name.slice(0, -ACK_FILE_SUFFIX.length));
    else if (isSignalFileName(name)) signals.push(name);
  }
  const acknowledged: boolean[] = new Array<boolean>(signals.length);
  let unacknowledged = 0;
  for (let i = 0; i < signals.length; i++) {
    const ack = acked.has(signals[i]!);
    acknowledged[i] = ack;
    if (!ack) unacknowledged++;
  }
  return { signals, acknowledged, unacknowledged };
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
    const { signals, acknowledged } = box;
    for (let j = 0; j < signals.length; j++) {
      const name = signals[j]!;
      if (!acknowledged[j]) acked.set(name, false);
      else if (!acked.has(name)) acked.set(name, true);
    }
    return { total: signals.length, unacknowledged: box.unacknowledged };
  });
  return new Map(
    parties.map((party, i) => {
      // An outbox's own acks mean nothing: its signals are acknowledged in their recipients' inboxes.
      const names = boxNames(where[i]!.outbox);
      let total = 0;
      let unacknowledged = 0;
      for (let j = 0; j < names.length; j++) {
        const name = names[j]!;
        if (!isSignalFileName(name)) continue;
        total++;
        if (!(acked.get(name) ?? false)) unacknowledged++;
      }
      return [party.id, { inbox: inboxes[i]!, outbox: { total, unacknowledged } }];
    }),
  );
}
