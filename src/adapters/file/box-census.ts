import { readdirSync } from 'node:fs';
import type { SignalParty } from '../../core/resolve-party.js';
import { workspacePaths } from './file-layout.js';
import type { PartyCensus, SignalCounts } from '../../ports/signal-transport.js';
import { ACK_FILE_SUFFIX, isSignalFileName } from './signals/signal-file-name.js';
import { runStart } from './signals/name-run.js';
import { fileSystemErrorFor } from '../../infra/fs/fs-errors.js';

/**
 * Signal counts of a box from its file names alone: a monitoring cycle over hundreds of teams with
 * thousands of signals each must not read every signal body. A signal is acknowledged when its
 * `<name>.ack` exists beside it (the ack's content is trusted; `fed signal list` validates it).
 */
export interface BoxCensus {
  /** Signal file names in the box, in code-unit order (by time to the second, for the names fed gives). */
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
  // Sorted, a signal's ack (`<signal>.ack`) comes after it, with only names that begin with the signal's
  // whole name between: each signal finds its ack by looking ahead, with no set of the acks to build and
  // hash (a third less time over a thousand boxes of a monitoring cycle, mostly before V8 has optimised
  // this). Counted in the same pass; plain loops, as a callback per name cost twice the time.
  const names = boxNames(dir).sort();
  const signals: string[] = [];
  const acknowledged: boolean[] = [];
  let unacknowledged = 0;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (!isSignalFileName(name)) continue;
    let ack = false;
    for (let j = i + 1; j < names.length && names[j]!.startsWith(name); j++)
      if (names[j]!.length === name.length + ACK_FILE_SUFFIX.length && names[j]!.endsWith(ACK_FILE_SUFFIX)) {
        ack = true;
        break;
      }
    signals.push(name);
    acknowledged.push(ack);
    if (!ack) unacknowledged++;
  }
  return { signals, acknowledged, unacknowledged };
}

/** Told each inbox's census as it is taken (the monitor picks its stuck-signal candidates from it). */
export type InboxCensusListener = (party: SignalParty, inbox: string, census: BoxCensus) => void;

/**
 * The census of the parties' boxes (SignalTransport.census), each box listed once. A sent signal's inbox
 * copy normally has the same name as the sender's outbox copy, so an outbox signal's acknowledgment is
 * found without reading its body. Not always: signals of one second and subject sent to several
 * recipients collide in the sender's outbox (`…-2.json`, `…-3.json`) but not in each inbox, where each is
 * the run's first name — so an outbox name no inbox holds is judged by the inbox copies of its run's
 * first name (`fed signal list --box outbox` finds the copy by id; reading every outbox signal here would
 * cost a monitoring cycle a file per signal). A name found in no inbox either way (or in several, not
 * all acknowledged) counts as unacknowledged: the monitor would rather over-report pending work than hide it.
 * A box that a file on its path, or its permissions, keep from being listed counts as empty, and its party's census says why.
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
  // Why a party's box could not be listed, by party: rare, so kept apart from the counts.
  const unreadable = new Map<string, string>();
  const inboxes = where.map((paths, i): SignalCounts => {
    let box: BoxCensus;
    try {
      box = takeCensus(paths.inbox);
    } catch (error) {
      unreadable.set(parties[i]!.id, unlistable(error));
      box = { signals: [], acknowledged: [], unacknowledged: 0 };
    }
    // Told even of a box that could not be listed, so the stuck-signal scan does not list it again.
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
      let names: string[] = [];
      try {
        names = boxNames(where[i]!.outbox);
      } catch (error) {
        if (!unreadable.has(party.id)) unreadable.set(party.id, unlistable(error));
      }
      let total = 0;
      let unacknowledged = 0;
      for (let j = 0; j < names.length; j++) {
        const name = names[j]!;
        if (!isSignalFileName(name)) continue;
        total++;
        if (!(acked.get(name) ?? acknowledgedAsRunStart(acked, name))) unacknowledged++;
      }
      const census: PartyCensus = { inbox: inboxes[i]!, outbox: { total, unacknowledged } };
      const why = unreadable.get(party.id);
      if (why !== undefined) census.unreadable = why;
      return [party.id, census];
    }),
  );
}

/**
 * Why a box cannot be listed when a file lies where it (or a folder above it) belongs (ENOTDIR), or the
 * user fed runs as may not read it (EACCES, EPERM: an agent run as another user made it its own), as the
 * listing found it, with no look at the path beforehand: one team's, reported with that team. Any other
 * error is thrown.
 */
function unlistable(error: unknown): string {
  const known = concernsItsPartyAlone(error) ? fileSystemErrorFor(error) : undefined;
  if (known === undefined) throw error;
  return known.message;
}

const ITS_PARTYS_ALONE: ReadonlySet<string | undefined> = new Set(['ENOTDIR', 'EACCES', 'EPERM']);

/**
 * Whether listing a party's box failed for a reason of that party's alone (a file in its place, no
 * permission to read it: unlistable), which its census reports: every other reader of the box passes it by.
 */
export function concernsItsPartyAlone(error: unknown): boolean {
  return ITS_PARTYS_ALONE.has((error as NodeJS.ErrnoException).code);
}

/** Whether the inbox copies of the first name of the run `name` is a later name of are all acknowledged (false when none is held). */
function acknowledgedAsRunStart(acked: ReadonlyMap<string, boolean>, name: string): boolean {
  const start = runStart(name);
  return start !== undefined && (acked.get(start) ?? false);
}
