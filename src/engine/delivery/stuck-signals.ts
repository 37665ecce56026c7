import { statusOf } from '../../core/find-team.js';
import { META } from '../../core/schema/common.js';
import type { Registry } from '../../core/schema/registry.js';
import type { SignalMessage, SignalType } from '../../core/schema/signal.js';
import { everyParty, type SignalParty } from '../../core/resolve-party.js';
import { dueAt, needsAnswer, noteDue, type DeadlineTable, type NextDue } from '../../core/deadlines.js';
import type { DeliveryFactStore } from '../../ports/delivery-fact-store.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { StuckCandidate, StuckSignalSearch } from '../../ports/stuck-signal-census.js';

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
 * The stuck signals of every live inbox (never an archive), oldest first. The candidates come from the
 * transport's stuck-signal census when it has one (`chosen`: the ones a census already chose), else every
 * signal of every inbox is one; each is judged by its delivery facts. Alerts the monitor raised itself
 * (meta to meta) are never escalated again, so one cannot breed another.
 */
export async function findStuckSignals(
  backend: FederationBackend,
  registry: Registry,
  deadlines: DeadlineTable,
  now: Date,
  /** The candidates a census chose as it looked at the inboxes (the monitor's cycle). */
  chosen?: () => Promise<StuckCandidate[]>,
  /** Given: set to the earliest deadline still ahead (NextDue). */
  next?: NextDue,
): Promise<StuckSignal[]> {
  const candidates = chosen
    ? await chosen()
    : await stuckCandidates(backend, everyParty(registry.teams), { deadlines, now, next });
  return judgeStuckCandidates(backend, candidates, { deadlines, now, next });
}

/** Of `candidates`, the signals stuck by their delivery facts, oldest first. */
export async function judgeStuckCandidates(
  backend: FederationBackend,
  candidates: readonly StuckCandidate[],
  search: StuckSignalSearch,
): Promise<StuckSignal[]> {
  const stuck: StuckSignal[] = [];
  for (const { entry, acknowledged, recipientArchived } of candidates) {
    const found = await stuckEntry(
      entry.message,
      acknowledged,
      recipientArchived,
      entry.path,
      backend.delivery,
      search,
    );
    if (found) stuck.push(found);
  }
  return stuck.sort(byTimestamp);
}

/** Oldest first. */
export function byTimestamp(a: StuckSignal, b: StuckSignal): number {
  return Date.parse(a.timestamp) - Date.parse(b.timestamp);
}

/**
 * The signals of the parties' inboxes that may be stuck (StuckSignalCensus.candidates), chosen by the
 * transport's census when it has one; the dashboard looks again at only the inboxes that changed.
 */
export async function stuckCandidates(
  backend: FederationBackend,
  parties: readonly SignalParty[],
  search: StuckSignalSearch,
): Promise<StuckCandidate[]> {
  const census = backend.signals.stuckCensus;
  if (census.supported) return census.candidates(parties, search);
  // Without a census every signal of every inbox is looked at, read through the transport.
  const candidates: StuckCandidate[] = [];
  for (const party of parties) {
    const recipientArchived = party.entry !== undefined && statusOf(party.entry) === 'archived';
    for (const entry of (await backend.signals.inbox(party).list()).signals)
      candidates.push({ entry, acknowledged: entry.message.acknowledged === true, recipientArchived });
  }
  return candidates;
}

async function stuckEntry(
  message: SignalMessage,
  acknowledged: boolean,
  recipientArchived: boolean,
  path: string,
  facts: DeliveryFactStore,
  { deadlines, now, next }: StuckSignalSearch,
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
