import { join } from 'node:path';
import { workspacePaths } from '../../../core/layout.js';
import { statusOf } from '../../../core/find-team.js';
import { META } from '../../../core/schema/common.js';
import type { Registry } from '../../../core/schema/registry.js';
import type { SignalMessage, SignalType } from '../../../core/schema/signal.js';
import { judgeSignal } from '../../../core/schema/judge-signal.js';
import { ACK_FILE_SUFFIX, isAckFileName, isSignalFileName, nameHint, signalTypeOfName } from './signal-file-name.js';
import { dueAt, needsAnswer, type DeadlineTable } from '../../../core/deadlines.js';
import { FILE_BACKEND_NAME } from '../open-file-backend.js';
import type { DeliveryFactStore } from '../../../ports/delivery-fact-store.js';
import type { FederationBackend } from '../../../ports/federation-backend.js';
import { readValidFile } from './read-valid-file.js';
import { listDirectory } from '../../../infra/fs/list-directory.js';
import type { InboxCensusListener } from '../box-census.js';

/** A live signal that is overdue (`expired`) or sits in the inbox of an archived team (`undeliverable`). */
export interface StuckSignal {
  id: string;
  state: 'expired' | 'undeliverable';
  from: string;
  to: string;
  type: SignalType;
  subject: string;
  timestamp: string;
  /** When it was due (expired signals). */
  dueAt: string | null;
  /** Why it cannot be delivered (undeliverable signals). */
  reason: string | null;
  path: string;
  /** The alert about it (to meta when overdue, to its sender when undeliverable), once sent. */
  alertId: string | null;
  alertedAt: string | null;
}

/**
 * The earliest deadline still ahead among the signals a search looked at: a caller that reads again on a
 * clock (the dashboard) need not read before then, as no signal it saw becomes stuck sooner.
 */
export interface NextDue {
  at: number | null;
}

function noteDue(next: NextDue | undefined, due: number): void {
  if (next && (next.at === null || due < next.at)) next.at = due;
}

/**
 * The stuck signals of every live inbox (never an `archive/` folder). On files, candidates are chosen
 * from file names — a signal not acknowledged (or a question not answered) whose type's deadline has
 * passed, and every unacknowledged signal of an archived team — so a cycle reads only those bodies, for
 * their ids; another backend's inboxes are read through its transport. Alerts the monitor raised itself
 * (meta to meta) are never escalated again, so one cannot breed another.
 */
export async function findStuckSignals(
  backend: FederationBackend,
  registry: Registry,
  deadlines: DeadlineTable,
  now: Date,
  /** The names of an inbox and whether each is acknowledged, when the caller listed it already (the monitor's census). */
  listed?: (inbox: string) => InboxName[] | undefined,
  /** Given: set to the earliest deadline still ahead (NextDue). */
  next?: NextDue,
): Promise<StuckSignal[]> {
  const stuck =
    backend.name === FILE_BACKEND_NAME
      ? await stuckInFolders(backend.root, registry, backend.delivery, deadlines, now, listed, next)
      : await stuckInTransport(backend, registry, deadlines, now, next);
  return stuck.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
}

/** Through the transport: every signal of every inbox is looked at (no names to choose candidates by). */
async function stuckInTransport(
  backend: FederationBackend,
  registry: Registry,
  deadlines: DeadlineTable,
  now: Date,
  next: NextDue | undefined,
): Promise<StuckSignal[]> {
  const stuck: StuckSignal[] = [];
  const parties = [{ id: META, entry: undefined }, ...registry.teams.map((entry) => ({ id: entry.domainId, entry }))];
  for (const party of parties) {
    const archived = party.entry !== undefined && statusOf(party.entry) === 'archived';
    for (const entry of (await backend.signals.inbox(party).list()).signals) {
      const found = await stuckEntry(
        entry.message,
        entry.message.acknowledged === true,
        archived,
        entry.path,
        backend.delivery,
        deadlines,
        now,
        next,
      );
      if (found) stuck.push(found);
    }
  }
  return stuck;
}

async function stuckInFolders(
  root: string,
  registry: Registry,
  facts: DeliveryFactStore,
  deadlines: DeadlineTable,
  now: Date,
  listed: ((inbox: string) => InboxName[] | undefined) | undefined,
  next: NextDue | undefined,
): Promise<StuckSignal[]> {
  const stuck: StuckSignal[] = [];
  const inboxes = [
    { owner: META, inbox: workspacePaths(root).inbox, archived: false },
    ...registry.teams.map((team) => ({
      owner: team.domainId,
      inbox: workspacePaths(team.location).inbox,
      archived: statusOf(team) === 'archived',
    })),
  ];
  for (const { owner, inbox, archived } of inboxes) {
    for (const { name, acknowledged } of listed?.(inbox) ?? boxNames(inbox)) {
      if (!stuckCandidate(name, acknowledged, archived, deadlines, now, next)) continue;
      // Invalid files are the consumer's and `fed signal list`'s to report.
      const message = readValidFile(join(inbox, name), (bytes) => judgeSignal(bytes, { owner, box: 'inbox' }));
      if (!message) continue;
      const entry = await stuckEntry(message, acknowledged, archived, join(inbox, name), facts, deadlines, now, next);
      if (entry) stuck.push(entry);
    }
  }
  return stuck;
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
 * censusOfBoxes, `listed` to findStuckSignals.
 */
export function stuckCandidatesOfCensus(
  deadlines: DeadlineTable,
  now: Date,
): { onInbox: InboxCensusListener; listed: (inbox: string) => InboxName[] | undefined } {
  const candidates = new Map<string, InboxName[]>();
  return {
    onInbox: (party, inbox, census) => {
      const archived = party.entry !== undefined && statusOf(party.entry) === 'archived';
      const names: InboxName[] = [];
      // A plain loop, as the census's (box-census.ts): it runs for every name of every inbox.
      for (let j = 0; j < census.signals.length; j++) {
        const name = census.signals[j]!;
        const acknowledged = census.acknowledged[j]!;
        if (stuckCandidate(name, acknowledged, archived, deadlines, now)) names.push({ name, acknowledged });
      }
      candidates.set(inbox, names);
    },
    listed: (inbox) => candidates.get(inbox),
  };
}

async function stuckEntry(
  message: SignalMessage,
  acknowledged: boolean,
  recipientArchived: boolean,
  path: string,
  facts: DeliveryFactStore,
  deadlines: DeadlineTable,
  now: Date,
  next?: NextDue,
): Promise<StuckSignal | undefined> {
  if (await facts.has(message.id, 'answered')) return undefined;
  const base = {
    id: message.id,
    from: message.from,
    to: message.to,
    type: message.type,
    subject: message.subject,
    timestamp: message.timestamp,
    path,
  };
  if (recipientArchived) {
    // What the team took before it was archived was delivered: only what it never acknowledged goes back.
    if (acknowledged) return undefined;
    const recorded = await facts.get(message.id, 'undeliverable');
    const reason = `recipient "${message.to}" is archived`;
    return {
      ...base,
      state: 'undeliverable',
      dueAt: null,
      reason,
      alertId: recorded?.alertId ?? null,
      alertedAt: recorded?.reportedAt ?? null,
    };
  }
  if (message.from === META && message.to === META && message.type === 'alert') return undefined;
  if (acknowledged && !needsAnswer(message.type)) return undefined;
  const due = dueAt(message.type, message.timestamp, deadlines);
  if (due === undefined) return undefined;
  if (due > now.getTime()) {
    noteDue(next, due);
    return undefined;
  }
  const recorded = await facts.get(message.id, 'escalated');
  return {
    ...base,
    state: 'expired',
    dueAt: new Date(due).toISOString(),
    reason: null,
    alertId: recorded?.alertId ?? null,
    alertedAt: recorded?.escalatedAt ?? null,
  };
}

export interface InboxName {
  name: string;
  acknowledged: boolean;
}

function boxNames(inbox: string): InboxName[] {
  const names = listDirectory(inbox);
  const acks = new Set(names.filter(isAckFileName));
  return names.filter(isSignalFileName).map((name) => ({ name, acknowledged: acks.has(`${name}${ACK_FILE_SUFFIX}`) }));
}
