import type { MachineEntry } from '../../../machines/catalog.js';
import { archetypeOf } from '../archetypes/catalog.js';
import { RefusedError } from '../../core/errors.js';
import type { LifecycleSection, LifecycleStore } from '../../ports/lifecycle-store.js';
import { DEDUPE_UNTIL_ACK, type LifecycleEnvelope } from '../../core/schema/lifecycle-state.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { SignalMessage } from '../../core/schema/signal.js';
import { findTeam, statusOf } from '../../core/find-team.js';
import { recordSignalReceived, recordTransition } from '../../infra/telemetry/fed-metrics.js';
import { restoreSnapshot } from './restore-snapshot.js';
import { settleEffects, type SharedRegistry } from './lifecycle-effects.js';
import { initialPersistedSnapshot } from './lifecycle-transition.js';
import { takenSinceRead } from './taken-signals.js';
import { LifecycleWalk } from './lifecycle-walk.js';
import { stateOf } from './state-of.js';
import type { Federation } from '../context.js';
import type { ApplyOptions, ApplyResult, LifecycleChange, TeamLifecycle } from './lifecycle-types.js';

/** The lifecycle machine of a team's archetype; an archetype without one is refused by name. */
export function lifecycleEntryFor(team: RegistryEntry): MachineEntry {
  return archetypeOf(team).lifecycle;
}

function initialEnvelope(entry: MachineEntry, team: RegistryEntry): LifecycleEnvelope {
  return {
    machineId: entry.id,
    machineVersion: entry.version,
    // The lifecycle starts when the team was onboarded: that is when `preparing` was entered.
    snapshot: initialPersistedSnapshot(entry, team.onboardedAt),
    seq: 0,
    processed: [],
    // A lifecycle that starts now keeps ids only until their ack is durable, from its first write on.
    dedupe: DEDUPE_UNTIL_ACK,
    journalTail: [],
    pendingReports: [],
    savedAt: team.onboardedAt,
  };
}

/** What an apply tells of a signal it was given that another process took out of the inbox after it was read. */
export function leftInboxWarning(team: string, id: string): string {
  return `team "${team}": signal ${id} left the inbox after it was read; it is not applied`;
}

/**
 * Read a team's lifecycle (validated and migrated) from the federation's lifecycle store, without
 * changing anything. With `known` (what the caller loaded or wrote before), only the stored version is
 * asked for: unchanged, `known` is still current and nothing is read, validated or restored again.
 */
export async function loadTeamLifecycle(
  team: RegistryEntry,
  lifecycles: LifecycleStore,
  known?: TeamLifecycle,
): Promise<TeamLifecycle> {
  if (known && known.team.location === team.location && (await lifecycles.version(team)) === known.version)
    return known;
  const entry = lifecycleEntryFor(team);
  const stored = await lifecycles.read(team);
  const envelope = stored?.envelope ?? initialEnvelope(entry, team);
  const snapshot = restoreSnapshot(envelope, entry, lifecycles.envelopeLocation(team));
  return { team, entry, snapshot, envelope, stored: stored !== undefined, version: stored?.version ?? null };
}

/**
 * Apply inputs to a team's lifecycle, exactly once each (docs/design/invariants.md #6–8).
 *
 * Under the team's state lock: restore the envelope (validated), settle what the previous write owed
 * (journal lines, reports to meta, registry status), apply each input, then write the new snapshot
 * together with the processed signal ids and the effects it owes in ONE atomic, durable replace — and
 * only then perform those effects. A crash before the write changes nothing; a crash after it is healed
 * by the next load, and the dedupe record stops a redelivered signal from being applied twice.
 *
 * An event from `fed event` that the state does not accept is refused (nothing written); a signal whose
 * event is not accepted is recorded as ignored, so it is acknowledged and never retried forever.
 */
export async function applyLifecycleInputs(
  fed: Federation,
  team: RegistryEntry,
  inputs: readonly LifecycleChange[],
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  refuseArchived(team);
  lifecycleEntryFor(team);
  // The backend refuses to write where fed must not (file-signal-v1: a workspace outside the root or behind
  // a link); a backend that keeps lifecycles elsewhere needs no workspace here (a team on another machine).
  const { backend } = fed;
  return backend.lifecycles.exclusive(team, async (section) => {
    const start = await loadAndSettle(fed, team, options);
    const now = () => (options.now?.() ?? fed.now()).toISOString();
    const { taken, gone } = await takenSinceRead(backend, team, start.lifecycle, inputs, options.inboxReadAgainst);
    for (const id of gone) start.warnings.push(leftInboxWarning(team.domainId, id));
    const walk = new LifecycleWalk({
      team,
      lifecycle: start.lifecycle,
      backend,
      now,
      inspect: options.inspect,
      keepHeld: options.keepHeld,
      warnings: start.warnings,
      taken,
    });
    await walk.run(gone.size === 0 ? inputs : inputs.filter((i) => i.source !== 'signal' || !gone.has(i.signal.id)));
    return saveWalk(fed, team, section, start, walk, options, now);
  });
}

/** What an apply starts from, under the team's section. */
interface ApplyStart {
  lifecycle: TeamLifecycle;
  /** The registry as read under the section, shared by the effects of this apply. */
  shared: SharedRegistry;
  warnings: string[];
  /** What the stored envelope owes and could not do now, carried into the next one. */
  owed: Pick<LifecycleEnvelope, 'journalTail' | 'pendingReports'>;
}

/** Refuse an archived team, load its lifecycle, and settle what the previous write still owes. */
async function loadAndSettle(fed: Federation, team: RegistryEntry, options: ApplyOptions): Promise<ApplyStart> {
  // The caller's entry may be old (a consumer reads it once): archiving takes this section too, so the
  // status read here cannot change before the write below. Read once, and reused by the effects of
  // this apply (reports to meta, the registry status).
  // The two reads are independent: in flight together.
  const [registry, lifecycle] = await Promise.all([
    fed.backend.registry.read(),
    loadTeamLifecycle(team, fed.backend.lifecycles, options.known),
  ]);
  const shared = { registry };
  refuseArchived(findTeam(registry, team.domainId) ?? team);
  const warnings = await settleEffects(fed, team, lifecycle, options, shared);
  // What the stored envelope owes and could not do now (a full or read-only disk) is carried into the
  // next envelope, so it is retried after this write too instead of being replaced and lost. Journal
  // lines are appended by seq and reports sent with fixed ids, so carrying done ones as well is harmless.
  const owed = warnings.length > 0 && lifecycle.stored ? lifecycle.envelope : { journalTail: [], pendingReports: [] };
  return { lifecycle, shared, warnings, owed };
}

/**
 * Save what the walk ended with in one envelope write (none when nothing changed), let the caller
 * acknowledge, then perform the effects the new envelope owes.
 */
async function saveWalk(
  fed: Federation,
  team: RegistryEntry,
  section: LifecycleSection,
  start: ApplyStart,
  walk: LifecycleWalk,
  options: ApplyOptions,
  now: () => string,
): Promise<ApplyResult> {
  const { lifecycle, warnings } = start;
  // No write since the caller read the inbox: after this one, its read still holds (ApplyResult.inboxReadAgainst).
  const readStill = options.inboxReadAgainst !== undefined && lifecycle.version === options.inboxReadAgainst;
  const next = envelopeToSave(start, walk, options, now);
  if (next === undefined) {
    await options.afterSave?.(walk.processedNow);
    return applyResult(walk, warnings, lifecycle, start.shared, readStill);
  }
  // Compare-and-swap inside the section: a holder that lost it meanwhile (removed by hand, or fed doctor)
  // or whose envelope changed underneath must not write.
  options.faultPoint?.('before-persist');
  const version = await fed.backend.lifecycles.write(team, next, lifecycle.version, section, options);
  options.faultPoint?.('after-persist');
  countSaved(team, lifecycle.entry, walk);
  // What a load of the new envelope would give, without reading it back: the next apply of this holder starts here.
  const saved: TeamLifecycle = {
    ...lifecycle,
    envelope: next,
    snapshot: restoreSnapshot(next, lifecycle.entry, fed.backend.lifecycles.envelopeLocation(team)),
    stored: true,
    version,
  };
  // The caller's acknowledgments and the new envelope's effects both only follow the write, and neither
  // waits for the other: their round trips overlap.
  const acknowledge = async () => {
    await options.afterSave?.(walk.processedNow);
    options.faultPoint?.('after-ack');
  };
  const [, owed] = await Promise.all([acknowledge(), settleEffects(fed, team, saved, options, start.shared)]);
  // An effect owed before this write that fails again after it is said once.
  warnings.push(...owed.filter((warning) => !warnings.includes(warning)));
  return applyResult(walk, warnings, saved, start.shared, readStill);
}

/**
 * The envelope the walk leads to, or undefined when there is nothing to write: no journal line and no
 * change of the held list — unless `compact` asks to drop acknowledged ids or adopt dedupe `until-ack`.
 */
function envelopeToSave(
  { lifecycle, owed }: ApplyStart,
  walk: LifecycleWalk,
  options: ApplyOptions,
  now: () => string,
): LifecycleEnvelope | undefined {
  const { entry, envelope } = lifecycle;
  const { lines, nextHeld } = walk;
  const storedHeld = envelope.held ?? [];
  // Adopted only when nothing was held back: a held signal of an older inbox may already be acknowledged.
  const dedupe = envelope.dedupe ?? (options.adoptAckRule && !walk.holdsBack ? DEDUPE_UNTIL_ACK : undefined);
  const acknowledged = dedupe ? (options.acknowledged ?? new Set<string>()) : new Set<string>();
  const heldChanged = nextHeld.length !== storedHeld.length || nextHeld.some((h, i) => h.id !== storedHeld[i]!.id);
  const unchanged = lines.length === 0 && !heldChanged;
  const compacts =
    options.compact === true &&
    lifecycle.stored &&
    (dedupe !== envelope.dedupe || envelope.processed.some((id) => acknowledged.has(id)));
  if (unchanged && !compacts) return undefined;
  return {
    machineId: entry.id,
    machineVersion: entry.version,
    snapshot: entry.machine.getPersistedSnapshot(walk.snapshot) as Record<string, unknown>,
    seq: walk.seq,
    processed: [...walk.processed].filter((id) => !acknowledged.has(id)),
    ...(dedupe ? { dedupe } : {}),
    ...(nextHeld.length > 0 ? { held: nextHeld } : {}),
    journalTail: lines.length === 0 ? envelope.journalTail : [...owed.journalTail, ...lines],
    pendingReports: lines.length === 0 ? envelope.pendingReports : [...owed.pendingReports, ...walk.reports],
    savedAt: lines.length === 0 ? envelope.savedAt : now(),
  };
}

/** Counted once saved: a crash before the write redelivers the signals, which are then counted once. */
function countSaved(team: RegistryEntry, entry: MachineEntry, walk: LifecycleWalk): void {
  for (const step of walk.steps) {
    if (step.signal && (step.outcome === 'applied' || step.outcome === 'ignored'))
      recordSignalReceived(team.domainId, step.signal.type, step.outcome);
  }
  for (const line of walk.lines)
    if (line.from !== line.to) recordTransition(team.domainId, entry.id, line.from, line.to);
}

function applyResult(
  walk: LifecycleWalk,
  warnings: string[],
  lifecycle: TeamLifecycle,
  shared: SharedRegistry,
  readStill: boolean,
): ApplyResult {
  return {
    steps: walk.steps,
    state: stateOf(walk.snapshot),
    processedSignalIds: walk.processedNow,
    warnings,
    lifecycle,
    ...(readStill && { inboxReadAgainst: lifecycle.version }),
    ...(shared.synced && { registryStatusSynced: shared.synced }),
  };
}

/**
 * Perform what the team's stored lifecycle still owes (journal lines, reports to meta, the registry
 * status), under its state lock; returns the problems, which are retried at the next load. A consumer
 * calls it when it starts, so a crash between a lifecycle write and its registry write is repaired even
 * when no signal comes.
 */
export async function settleTeamLifecycle(
  fed: Federation,
  team: RegistryEntry,
  options: ApplyOptions = {},
): Promise<string[]> {
  lifecycleEntryFor(team);
  const { backend } = fed;
  return backend.lifecycles.exclusive(
    team,
    async () => {
      const current = findTeam(await backend.registry.read(), team.domainId) ?? team;
      if (statusOf(current) === 'archived') return [];
      return settleEffects(fed, current, await loadTeamLifecycle(current, backend.lifecycles), options);
    },
    options,
  );
}

function refuseArchived(team: RegistryEntry): void {
  if (statusOf(team) === 'archived') {
    throw new RefusedError('TEAM_ARCHIVED', `team "${team.domainId}" is archived; its lifecycle no longer changes`);
  }
}

/**
 * Run `fn` holding the team's exclusive section of the lifecycle store: every change of the lifecycle,
 * and archiving, which must not happen between a lifecycle's read of the registry and its write.
 */
export async function withStateLock<T>(
  fed: Federation,
  team: RegistryEntry,
  options: ApplyOptions,
  fn: (section: LifecycleSection) => Promise<T>,
): Promise<T> {
  return fed.backend.lifecycles.exclusive(team, fn, options);
}

/**
 * Whether a signal of the inbox still waits for this lifecycle: not in its dedupe record or held list,
 * and — with dedupe `until-ack` — not acknowledged (an acknowledged signal is taken).
 */
export function awaitsApply(envelope: LifecycleEnvelope, message: SignalMessage): boolean {
  if (envelope.processed.includes(message.id) || envelope.held?.some((h) => h.id === message.id)) return false;
  return !(envelope.dedupe && message.acknowledged);
}
