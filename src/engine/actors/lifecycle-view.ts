import type { JournalLine } from '../../core/schema/lifecycle-state.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { SignalMessage } from '../../core/schema/signal.js';
import { loadTeamLifecycle } from './team-lifecycle.js';
import { stateOf } from './state-of.js';
import type { Federation } from '../context.js';

/** What `fed team show` says about a team's lifecycle (stable JSON shape, documented in docs/guide.md). */
export interface LifecycleView {
  machine: string;
  machineVersion: number;
  /** Leaf state name, e.g. "scanning". */
  state: string;
  /** When the current state was entered (ISO), when known. */
  since: string | null;
  /** The state a paused team resumes to. */
  pausedFrom: string | null;
  mission: { subject: string; signalId: string } | null;
  failure: { reason: string; state: string } | null;
  /** Inbox signals not acknowledged yet. */
  pending: { id: string; type: string; from: string; subject: string; timestamp: string }[];
  /** The last transitions, oldest first. */
  recent: JournalLine[];
}

export async function viewLifecycle(fed: Federation, team: RegistryEntry, recentCount = 5): Promise<LifecycleView> {
  const { backend } = fed;
  const lifecycle = await loadTeamLifecycle(team, backend.lifecycles);
  const { context } = lifecycle.snapshot;
  const state = stateOf(lifecycle.snapshot);
  // Only the unacknowledged signals are read: a long-lived team's inbox holds its whole history (and an
  // ack per signal of it, taken as listed, as the monitor does).
  const pending: SignalMessage[] = [];
  const inbox = backend.signals.inbox({ id: team.domainId, entry: team });
  for await (const batch of inbox.pendingBatches({ trustAcks: true }))
    pending.push(...batch.signals.map((s) => s.message));
  return {
    machine: lifecycle.entry.id,
    machineVersion: lifecycle.entry.version,
    state,
    since: context.enteredAt?.[state] ?? null,
    pausedFrom: context.pausedFrom ?? null,
    mission: context.mission ? { subject: context.mission.subject, signalId: context.mission.signalId } : null,
    failure: context.failure ?? null,
    pending: pending.map((m) => ({ id: m.id, type: m.type, from: m.from, subject: m.subject, timestamp: m.timestamp })),
    recent: await backend.lifecycles.journalTail(team, recentCount),
  };
}
