import type { JournalLine } from '../../core/schema/lifecycle-state.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { SignalMessage } from '../../core/schema/signal.js';
import { awaitsApply, loadTeamLifecycle } from './team-lifecycle.js';
import { inInboxOrder, readHeldSignals } from './held-signals.js';
import type { TeamLifecycle } from './lifecycle-types.js';
import { eventForSignal } from './signal-events.js';
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
  /**
   * Without a mission: the directive its lifecycle takes as its mission when it next applies its signals
   * (a new run's held one, else the oldest of meta's waiting in its inbox); null when none is there.
   */
  nextMission: { subject: string; signalId: string } | null;
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
    nextMission: context.mission ? null : await nextMission(fed, lifecycle, pending),
    failure: context.failure ?? null,
    pending: pending.map((m) => ({ id: m.id, type: m.type, from: m.from, subject: m.subject, timestamp: m.timestamp })),
    recent: await backend.lifecycles.journalTail(team, recentCount),
  };
}

/**
 * The signal a lifecycle without a mission takes as one next: held signals go first (in inbox order),
 * then the inbox's waiting ones — the first that is a mission to it (MISSION_ASSIGNED).
 */
async function nextMission(
  fed: Federation,
  lifecycle: TeamLifecycle,
  pending: readonly SignalMessage[],
): Promise<LifecycleView['nextMission']> {
  const warnings: string[] = [];
  const held = await readHeldSignals(fed.backend, lifecycle.team, lifecycle.envelope.held ?? [], warnings);
  const next = [
    ...held.sort(inInboxOrder).map((input) => input.signal),
    ...pending.filter((message) => awaitsApply(lifecycle.envelope, message)),
  ].find((message) => eventForSignal(message, lifecycle.snapshot)?.type === 'MISSION_ASSIGNED');
  return next ? { subject: next.subject, signalId: next.id } : null;
}
