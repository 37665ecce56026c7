import { join } from 'node:path';
import { workspacePaths } from '../file-layout.js';
import { statusOf } from '../../../core/find-team.js';
import type { SignalParty } from '../../../core/resolve-party.js';
import { judgeSignal } from '../../../core/schema/judge-signal.js';
import { dueAt, needsAnswer, noteDue, type DeadlineTable, type NextDue } from '../../../core/deadlines.js';
import type { PartyCensus } from '../../../ports/signal-transport.js';
import type {
  CensusWithCandidates,
  StuckCandidate,
  StuckSignalCensus,
  StuckSignalSearch,
} from '../../../ports/stuck-signal-census.js';
import { listDirectory } from '../../../infra/fs/list-directory.js';
import { censusOfBoxes, concernsItsPartyAlone, type InboxCensusListener } from '../box-census.js';
import { ACK_FILE_SUFFIX, isAckFileName, isSignalFileName, nameHint, signalTypeOfName } from './signal-file-name.js';
import { readValidFile } from './read-valid-file.js';

/**
 * StuckSignalCensus of file-signal-v1: the candidates are chosen from the inboxes' file names — a
 * signal's name carries its type and second, its ack file beside it its acknowledgment — so a cycle reads
 * only their bodies (never an `archive/` folder). A box is found at the party's registered location, as
 * the census finds it: a team whose workspace is refused elsewhere is still looked at.
 */
export class FileStuckSignalCensus implements StuckSignalCensus {
  readonly supported = true;

  constructor(private readonly root: string) {}

  async candidates(parties: readonly SignalParty[], search: StuckSignalSearch): Promise<StuckCandidate[]> {
    return readCandidates(this.root, parties, search, undefined);
  }

  async censusWithCandidates(
    parties: readonly SignalParty[],
    search: StuckSignalSearch,
  ): Promise<CensusWithCandidates> {
    const picks = stuckCandidatesOfCensus(search.deadlines, search.now);
    const census: Map<string, PartyCensus> = censusOfBoxes(this.root, parties, picks.onInbox);
    const listed = (inbox: string) => picks.picked(inbox)?.names;
    return {
      census,
      candidates: async () => readCandidates(this.root, parties, search, listed),
      candidatesOf: async (party, partySearch) => {
        const pick = picks.picked(inboxOf(this.root, party));
        if (pick === undefined) return undefined;
        if (pick.due !== null) noteDue(partySearch.next, pick.due);
        return readCandidates(this.root, [party], partySearch, () => pick.names);
      },
    };
  }
}

/** A party's inbox, as the census finds it: at its registered location (meta's at the root). */
function inboxOf(root: string, party: SignalParty): string {
  return workspacePaths(party.entry?.location ?? root).inbox;
}

/** The candidates of the parties' inboxes, read; `listed`: the names of an inbox when the census listed it already. */
function readCandidates(
  root: string,
  parties: readonly SignalParty[],
  { deadlines, now, next }: StuckSignalSearch,
  listed: ((inbox: string) => InboxName[] | undefined) | undefined,
): StuckCandidate[] {
  const candidates: StuckCandidate[] = [];
  for (const party of parties) {
    const inbox = inboxOf(root, party);
    const archived = party.entry !== undefined && statusOf(party.entry) === 'archived';
    for (const { name, acknowledged } of listed?.(inbox) ?? boxNames(inbox)) {
      if (!stuckCandidate(name, acknowledged, archived, deadlines, now, next)) continue;
      // Invalid files are the consumer's and `fed signal list`'s to report.
      const path = join(inbox, name);
      const message = readValidFile(path, (bytes) => judgeSignal(bytes, { owner: party.id, box: 'inbox' }));
      if (message) candidates.push({ entry: { file: name, path, message }, acknowledged, recipientArchived: archived });
    }
  }
  return candidates;
}

/**
 * Whether a signal may be stuck, judged by its name: every unacknowledged signal of an archived team, and
 * elsewhere one whose type's deadline passed without what it asks for (a name fed did not make is read).
 * The type is looked at first: most names of a census are acknowledged, or of a type without a deadline,
 * and are let go without the time in their name being parsed.
 */
function stuckCandidate(
  name: string,
  acknowledged: boolean,
  archived: boolean,
  deadlines: DeadlineTable,
  now: Date,
  next?: NextDue,
): boolean {
  if (archived) return !acknowledged;
  const type = signalTypeOfName(name);
  if (type === undefined) return true;
  if ((acknowledged && !needsAnswer(type)) || deadlines[type] === undefined) return false;
  // Names keep whole seconds: a signal sent late in its second is due up to a second after this.
  const due = dueAt(type, nameHint(name)!.time, deadlines)!;
  if (due <= now.getTime()) return true;
  noteDue(next, due);
  return false;
}

/**
 * The stuck-signal candidates of every inbox, picked from the census's listing as it is taken (only the
 * candidates are kept, not the listings), so a monitoring cycle lists each inbox once: `onInbox` goes to
 * censusOfBoxes, what `picked` gives to readCandidates.
 */
export function stuckCandidatesOfCensus(
  deadlines: DeadlineTable,
  now: Date,
): { onInbox: InboxCensusListener; picked: (inbox: string) => InboxPick | undefined } {
  const picks = new Map<string, InboxPick>();
  return {
    onInbox: (party, inbox, census) => {
      const archived = party.entry !== undefined && statusOf(party.entry) === 'archived';
      const names: InboxName[] = [];
      const next: NextDue = { at: null };
      // A plain loop, as the census's (box-census.ts): it runs for every name of every inbox.
      for (let j = 0; j < census.signals.length; j++) {
        const name = census.signals[j]!;
        const acknowledged = census.acknowledged[j]!;
        if (stuckCandidate(name, acknowledged, archived, deadlines, now, next)) names.push({ name, acknowledged });
      }
      picks.set(inbox, { names, due: next.at });
    },
    picked: (inbox) => picks.get(inbox),
  };
}

export interface InboxName {
  name: string;
  acknowledged: boolean;
}

/** An inbox's candidates as a census picked them, and the earliest deadline still ahead among its signals. */
export interface InboxPick {
  names: InboxName[];
  due: number | null;
}

function boxNames(inbox: string): InboxName[] {
  let names: string[];
  try {
    names = listDirectory(inbox);
  } catch (error) {
    // The census reports why (its team is unhealthy); the stuck signals of every other inbox are still found.
    if (concernsItsPartyAlone(error)) return [];
    throw error;
  }
  const acks = new Set(names.filter(isAckFileName));
  return names.filter(isSignalFileName).map((name) => ({ name, acknowledged: acks.has(`${name}${ACK_FILE_SUFFIX}`) }));
}
