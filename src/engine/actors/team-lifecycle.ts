import type { AnyMachineSnapshot, InspectionEvent } from 'xstate';
import { checkEvent, type MachineEntry } from '../../../machines/catalog.js';
import { documentedEvents } from '../../../machines/event-docs.js';
import type { LifecycleSnapshot } from '../../../machines/lifecycle-machine.js';
import { archetypeOf } from '../archetypes/catalog.js';
import { InvalidInputError, RefusedError } from '../../core/errors.js';
import type { WriteOptions } from '../../infra/fs/atomic-write.js';
import { openBackend } from '../../adapters/open-backend.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { EnvelopeVersion, LifecycleSection, LifecycleStore } from '../../ports/lifecycle-store.js';
import { zodProblemText } from '../../core/schema/problems.js';
import { DEDUPE_UNTIL_ACK, type HeldSignal, type JournalLine, type LifecycleEnvelope, type PendingReport } from '../../core/schema/lifecycle-state.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { SignalMessage } from '../../core/schema/signal.js';
import { findTeam, statusOf } from '../../core/find-team.js';
import { recordSignalReceived, recordTransition } from '../../infra/telemetry/fed-metrics.js';
import { reportSignalId } from './report-signal-id.js';
import { restoreSnapshot } from './restore-snapshot.js';
import { eventForSignal, signalCommand } from './signal-events.js';
import { settleEffects } from './lifecycle-effects.js';
import { ApplyInspection, initialPersistedSnapshot, takeTransition } from './lifecycle-transition.js';

/** The lifecycle machine of a team's archetype; an archetype without one is refused by name. */
export function lifecycleEntryFor(team: RegistryEntry): MachineEntry {
  return archetypeOf(team).lifecycle;
}

/** The state name of a lifecycle snapshot (lifecycle machines are flat). */
export function stateOf(snapshot: AnyMachineSnapshot): string {
  return typeof snapshot.value === 'string' ? snapshot.value : JSON.stringify(snapshot.value);
}

export interface TeamLifecycle {
  team: RegistryEntry;
  entry: MachineEntry;
  snapshot: LifecycleSnapshot;
  /** As stored; for a team with no state file yet, the envelope it would start from (seq 0). */
  envelope: LifecycleEnvelope;
  /** False when no state file exists yet (nothing has happened to the lifecycle). */
  stored: boolean;
  /** The stored envelope's version, for the compare-and-swap of the next write (null: none stored). */
  version: EnvelopeVersion;
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

/**
 * Read a team's lifecycle (validated and migrated) from the federation's lifecycle store, without
 * changing anything. With `known` (what the caller loaded or wrote before), only the stored version is
 * asked for: unchanged, `known` is still current and nothing is read, validated or restored again.
 */
export async function loadTeamLifecycle(team: RegistryEntry, lifecycles: LifecycleStore, known?: TeamLifecycle): Promise<TeamLifecycle> {
  if (known && known.team.location === team.location && (await lifecycles.version(team)) === known.version) return known;
  const entry = lifecycleEntryFor(team);
  const stored = await lifecycles.read(team);
  const envelope = stored?.envelope ?? initialEnvelope(entry, team);
  const snapshot = restoreSnapshot(envelope, entry, lifecycles.envelopeLocation(team));
  return { team, entry, snapshot, envelope, stored: stored !== undefined, version: stored?.version ?? null };
}

/** Something that may change a lifecycle: an inbox signal, an agent's `fed event`, or a registry command. */
export type LifecycleChange =
  /** `file`: the signal's handle in the team's inbox, needed only to keep it as held (see ApplyOptions.keepHeld). */
  | { source: 'signal'; signal: SignalMessage; file?: string }
  | { source: 'event'; event: { type: string; [key: string]: unknown } }
  | { source: 'registry'; event: { type: 'PAUSE' | 'RESUME'; at?: string } };

export type StepOutcome =
  /** The event was applied (the state may or may not have changed). */
  | 'applied'
  /** A signal whose event the state does not accept, or which maps to no event: processed, nothing changed. */
  | 'ignored'
  /** A signal applied before (its id is in the dedupe record): skipped. */
  | 'duplicate'
  /** A signal held back while the team is paused; it stays pending until the team resumes. */
  | 'deferred';

export interface LifecycleStep {
  outcome: StepOutcome;
  /** The signal the step came from (applied and ignored signal steps). */
  signal?: SignalMessage;
  /** The journal line written for it (applied and ignored steps). */
  line?: JournalLine;
  signalId?: string;
  note?: string;
}

export interface ApplyResult {
  steps: LifecycleStep[];
  state: string;
  /** Ids of signals that are now processed (applied, ignored or duplicate): ready to be acknowledged. */
  processedSignalIds: string[];
  /** Problems with effects after the state was saved; they are retried on the next load. */
  warnings: string[];
  /** The lifecycle as it is now (as written, or as loaded when nothing was written): pass it back as `known`. */
  lifecycle: TeamLifecycle;
}

export interface ApplyOptions extends WriteOptions {
  /** The federation's backend, when the caller has it open (default: openBackend(root)). */
  backend?: FederationBackend;
  now?: () => Date;
  /** xstate inspection (see src/infra/inspect): told about each apply as about an actor of the team (lifecycle-transition.ts). */
  inspect?: (event: InspectionEvent) => void;
  /**
   * Ids of signals whose acknowledgment is known to be durable: with dedupe `until-ack` they leave
   * `processed` in this write (an acknowledged signal is taken), which keeps the envelope small.
   */
  acknowledged?: ReadonlySet<string>;
  /**
   * The caller acknowledges the signals right after (`fed signal ack`): one held back while the team is
   * paused is kept in the envelope's `held` list, applied once it is not, and reported as processed.
   */
  keepHeld?: boolean;
  /**
   * The caller has applied, in this write or before, every signal of the inbox not in `processed` —
   * acknowledged ones included: an envelope of an earlier release may switch to dedupe `until-ack` now.
   */
  adoptAckRule?: boolean;
  /** The lifecycle the caller holds (ApplyResult.lifecycle): reused under the section when its version is unchanged. */
  known?: TeamLifecycle;
  /**
   * Write even when no input changed anything, if that drops `acknowledged` ids from the dedupe record,
   * adopts dedupe `until-ack` or applies held signals: snapshot, `seq`, `savedAt` and owed effects are kept.
   */
  compact?: boolean;
  /**
   * Called with the processed signal ids right after the envelope is saved (or found to need no write),
   * before the effects are settled: the ack follows the envelope write directly (ARCHITECTURE §1 order),
   * and a slow report to meta or registry write never delays it.
   */
  afterSave?: (processedSignalIds: readonly string[]) => Promise<void>;
}

/**
 * Apply inputs to a team's lifecycle, exactly once each (ARCHITECTURE invariants 6–8).
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
  root: string,
  team: RegistryEntry,
  inputs: readonly LifecycleChange[],
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  refuseArchived(team);
  lifecycleEntryFor(team);
  // The backend refuses to write where fed must not (file-signal-v1: a workspace outside the root or behind
  // a link); a backend that keeps lifecycles elsewhere needs no workspace here (a team on another machine).
  const backend = options.backend ?? openBackend(root);
  const effectOptions = { ...options, backend };
  return backend.lifecycles.exclusive(
    team,
    async (section) => {
    // The caller's entry may be old (a consumer reads it once): archiving takes this section too, so the
    // status read here cannot change before the write below. Read once, and reused by the effects of
    // this apply (reports to meta, the registry status).
    const shared = { registry: await backend.registry.read() };
    refuseArchived(findTeam(shared.registry, team.domainId) ?? team);
    const lifecycle = await loadTeamLifecycle(team, backend.lifecycles, options.known);
    const warnings = await settleEffects(root, team, lifecycle, effectOptions, shared);
    const { entry, envelope } = lifecycle;
    // What the stored envelope owes and could not do now (a full or read-only disk) is carried into the
    // next envelope, so it is retried after this write too instead of being replaced and lost. Journal
    // lines are appended by seq and reports sent with fixed ids, so carrying done ones as well is harmless.
    const owed = warnings.length > 0 && lifecycle.stored ? envelope : { journalTail: [], pendingReports: [] };
    const now = () => (options.now?.() ?? new Date()).toISOString();

    let current = lifecycle.snapshot;
    const inspection = options.inspect ? new ApplyInspection(options.inspect, entry, team, current) : undefined;
    const processed = new Set(envelope.processed);
    const storedHeld = envelope.held ?? [];
    const heldIds = new Set(storedHeld.map((h) => h.id));
    /** Held signals of the envelope still waiting: those applied now leave the list in this write. */
    let keptHeld: readonly HeldSignal[] = storedHeld;
    /** Ids read back from the held list: acknowledged already, so held again (never dropped) if the team pauses again. */
    const expanded = new Set<string>();
    const processedNow: string[] = [];
    const lines: JournalLine[] = [];
    const reports: PendingReport[] = [];
    const steps: LifecycleStep[] = [];
    let seq = envelope.seq;

    const record = (event: string, from: string, source: JournalLine['source'], signalId?: string, note?: string) => {
      const after = current;
      const line: JournalLine = { seq: ++seq, at: now(), event, from, to: stateOf(after), source };
      if (signalId !== undefined) line.signalId = signalId;
      if (note !== undefined) line.note = note;
      lines.push(line);
      if (line.from !== line.to) reports.push(transitionReport(team, entry, line, after));
      return line;
    };

    // Signals that arrive while the team is paused wait (only a resume gets through); once the lifecycle
    // has left paused they go first, in inbox order, before the signals that came after the resume.
    const queue = [...inputs];
    const held: SignalInput[] = [];
    for (;;) {
      if (stateOf(current) !== 'paused') {
        // The envelope's held signals were acknowledged while paused: they are read back from the inbox.
        if (keptHeld.length > 0) {
          const stored = await readHeldSignals(backend, team, keptHeld, warnings);
          keptHeld = [];
          for (const input of stored) {
            heldIds.delete(input.signal.id);
            expanded.add(input.signal.id);
          }
          held.push(...stored);
        }
        if (held.length > 0) queue.unshift(...held.splice(0).sort(inInboxOrder));
      }
      const input = queue.shift();
      if (input === undefined) break;
      const snapshot = current;
      const from = stateOf(snapshot);
      if (input.source === 'signal') {
        const { signal } = input;
        if (processed.has(signal.id) || heldIds.has(signal.id)) {
          steps.push({ outcome: 'duplicate', signalId: signal.id });
          processedNow.push(signal.id);
          continue;
        }
        if (from === 'paused' && signalCommand(signal) !== 'resume') {
          held.push(input);
          continue;
        }
        processed.add(signal.id);
        processedNow.push(signal.id);
        const event = eventForSignal(signal, snapshot);
        const refusal = event === undefined ? `a ${signal.type} changes no lifecycle` : refusalOf(entry, team, snapshot, event);
        if (event === undefined || refusal !== undefined) {
          const note = `ignored: ${refusal}`;
          steps.push({ outcome: 'ignored', signal, signalId: signal.id, note, line: record(event?.type ?? signal.type, from, 'signal', signal.id, note) });
          continue;
        }
        current = takeTransition(entry, team, snapshot, event, inspection);
        steps.push({ outcome: 'applied', signal, signalId: signal.id, line: record(event.type, from, 'signal', signal.id) });
        continue;
      }

      const event = input.source === 'event' ? validateAgentEvent(entry, team, input.event, now()) : { ...input.event, at: input.event.at ?? now() };
      const refusal = refusalOf(entry, team, snapshot, event);
      if (refusal !== undefined) {
        if (input.source === 'event') {
          throw new RefusedError('EVENT_NOT_ACCEPTED', `team "${team.domainId}" is ${from}: ${refusal}`);
        }
        steps.push({ outcome: 'ignored', note: `ignored: ${refusal}` });
        continue;
      }
      current = takeTransition(entry, team, snapshot, event, inspection);
      steps.push({ outcome: 'applied', line: record(event.type, from, input.source) });
    }
    // Still paused at the end: they wait for the resume, and are read again from the inbox then — or, when
    // the caller acknowledges them now, from the envelope's held list.
    const newlyHeld: HeldSignal[] = [];
    for (const input of held) {
      const id = input.signal.id;
      steps.push({ outcome: 'deferred', signalId: id });
      if (heldIds.has(id) || (!options.keepHeld && !expanded.has(id))) continue;
      if (input.file === undefined) throw new Error(`keepHeld needs the inbox handle of signal ${id}`);
      newlyHeld.push({ id, file: input.file });
      heldIds.add(id);
      // The caller acknowledges what it gave; those read back from the held list are acknowledged already.
      if (!expanded.has(id)) processedNow.push(id);
    }
    const nextHeld = [...keptHeld, ...newlyHeld];

    const final = current;
    const persisted = entry.machine.getPersistedSnapshot(final) as Record<string, unknown>;
    // Adopted only when nothing was held back: a held signal of an older inbox may already be acknowledged.
    const dedupe = envelope.dedupe ?? (options.adoptAckRule && held.length === 0 ? DEDUPE_UNTIL_ACK : undefined);
    const acknowledged = dedupe ? (options.acknowledged ?? new Set<string>()) : new Set<string>();
    const heldChanged = nextHeld.length !== storedHeld.length || nextHeld.some((h, i) => h.id !== storedHeld[i]!.id);
    const unchanged = lines.length === 0 && !heldChanged;
    const compacts = options.compact === true && lifecycle.stored && (dedupe !== envelope.dedupe || envelope.processed.some((id) => acknowledged.has(id)));
    if (unchanged && !compacts) {
      await options.afterSave?.(processedNow);
      return { steps, state: stateOf(final), processedSignalIds: processedNow, warnings, lifecycle };
    }

    const next: LifecycleEnvelope = {
      machineId: entry.id,
      machineVersion: entry.version,
      snapshot: persisted,
      seq,
      processed: [...processed].filter((id) => !acknowledged.has(id)),
      ...(dedupe ? { dedupe } : {}),
      ...(nextHeld.length > 0 ? { held: nextHeld } : {}),
      journalTail: lines.length === 0 ? envelope.journalTail : [...owed.journalTail, ...lines],
      pendingReports: lines.length === 0 ? envelope.pendingReports : [...owed.pendingReports, ...reports],
      savedAt: lines.length === 0 ? envelope.savedAt : now(),
    };
    // Compare-and-swap inside the section: a holder that lost it meanwhile (removed by hand, or fed doctor)
    // or whose envelope changed underneath must not write.
    const version = await backend.lifecycles.write(team, next, lifecycle.version, section, options);
    await options.afterSave?.(processedNow);
    // Counted once saved: a crash before the write redelivers the signals, which are then counted once.
    for (const step of steps) {
      if (step.signal && (step.outcome === 'applied' || step.outcome === 'ignored')) recordSignalReceived(team.domainId, step.signal.type, step.outcome);
    }
    for (const line of lines) if (line.from !== line.to) recordTransition(team.domainId, entry.id, line.from, line.to);
    // What a load of the new envelope would give, without reading it back: the next apply of this holder starts here.
    const saved: TeamLifecycle = { ...lifecycle, envelope: next, snapshot: restoreSnapshot(next, entry, backend.lifecycles.envelopeLocation(team)), stored: true, version };
    warnings.push(...(await settleEffects(root, team, saved, effectOptions, shared)));
    return { steps, state: stateOf(final), processedSignalIds: processedNow, warnings, lifecycle: saved };
  });
}

/**
 * Perform what the team's stored lifecycle still owes (journal lines, reports to meta, the registry
 * status), under its state lock; returns the problems, which are retried at the next load. A consumer
 * calls it when it starts, so a crash between a lifecycle write and its registry write is repaired even
 * when no signal comes.
 */
export async function settleTeamLifecycle(root: string, team: RegistryEntry, options: ApplyOptions = {}): Promise<string[]> {
  lifecycleEntryFor(team);
  const backend = options.backend ?? openBackend(root);
  return backend.lifecycles.exclusive(team, async () => {
    const current = findTeam(await backend.registry.read(), team.domainId) ?? team;
    if (statusOf(current) === 'archived') return [];
    return settleEffects(root, current, await loadTeamLifecycle(current, backend.lifecycles), { ...options, backend });
  }, options);
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
export async function withStateLock<T>(root: string, team: RegistryEntry, options: ApplyOptions, fn: (section: LifecycleSection) => Promise<T>): Promise<T> {
  return (options.backend ?? openBackend(root)).lifecycles.exclusive(team, fn, options);
}

/** Why `snapshot` does not accept `event`, or undefined when it does. */
function refusalOf(entry: MachineEntry, team: RegistryEntry, snapshot: AnyMachineSnapshot, event: { type: string }): string | undefined {
  const check = checkEvent(snapshot, event);
  if (check.accepted) return undefined;
  const accepted = check.acceptedTypes.length ? `it accepts ${check.acceptedTypes.join(', ')}` : 'it accepts no event';
  switch (check.reason) {
    case 'final':
      return `${stateOf(snapshot)} is final; the ${entry.id} lifecycle is over and accepts no event`;
    case 'condition-not-met':
      return `${event.type} is not allowed here with this payload or context (${conditionHint(entry, event.type).replaceAll('<team>', team.domainId)}); ${accepted}`;
    case 'not-accepted':
      return `${event.type} is not accepted in ${stateOf(snapshot)}; ${accepted}`;
  }
}

/** What a guarded event needs, for refusals that say how to fix the call: its own docs say, else the shared events'. `<team>` in it stands for the team. */
function conditionHint(entry: MachineEntry, type: string): string {
  const schema = entry.eventSchema as unknown as Parameters<typeof documentedEvents>[0];
  const own = documentedEvents(schema).find((event) => event.type === type)?.doc.needs;
  if (own) return own;
  return type === 'RESUME' ? 'resume returns to the state the team was paused in' : 'see the lifecycle diagram in diagrams/';
}

/** Validate an agent's event with the machine's zod schema, stamped with the time it was reported. */
function validateAgentEvent(entry: MachineEntry, team: RegistryEntry, raw: { type: string }, at: string): { type: string } {
  if (!entry.events.includes(raw.type)) {
    throw new InvalidInputError(`unknown event "${raw.type}" for the ${entry.id} lifecycle of team "${team.domainId}"; events: ${entry.events.join(', ')}`);
  }
  const parsed = entry.eventSchema.safeParse({ at, ...raw }, { reportInput: true });
  if (!parsed.success) {
    const problems = zodProblemText(parsed.error);
    throw new InvalidInputError(`invalid ${raw.type} event for team "${team.domainId}": ${problems}`);
  }
  return parsed.data as { type: string };
}

/** The report a state change owes meta; a failure says why. */
function transitionReport(team: RegistryEntry, entry: MachineEntry, line: JournalLine, after: LifecycleSnapshot): PendingReport {
  const why = line.signalId ? ` (signal ${line.signalId})` : line.source === 'registry' ? ' (fed team command)' : '';
  const { failure } = after.context;
  const reason = line.to === 'failed' && failure ? ` Reason: ${failure.reason}` : '';
  return {
    signalId: reportSignalId(team, entry.id, line.seq),
    subject: `${line.from} → ${line.to}`,
    body: `Team ${team.domainId} (${entry.id} lifecycle) moved from ${line.from} to ${line.to} on ${line.event}${why} at ${line.at}.${reason}`,
  };
}

type SignalInput = Extract<LifecycleChange, { source: 'signal' }>;

/**
 * The envelope's held signals, read back from the team's inbox. One that is gone or no longer the signal
 * with that id cannot be applied: it is dropped with a warning (someone removed or replaced it by hand).
 */
async function readHeldSignals(backend: FederationBackend, team: RegistryEntry, held: readonly HeldSignal[], warnings: string[]): Promise<SignalInput[]> {
  const inbox = backend.signals.inbox({ id: team.domainId, entry: team });
  const inputs: SignalInput[] = [];
  for (const { id, file } of held) {
    const found = await inbox.lookup(file);
    if (found && 'signal' in found && found.signal.message.id === id) inputs.push({ source: 'signal', signal: found.signal.message, file });
    else warnings.push(`team "${team.domainId}": the held signal ${id} (${file} in ${inbox.location}) ${found ? ('signal' in found ? 'now holds another signal' : `is no longer valid (${found.invalid.reason})`) : 'is gone'}; it is not applied`);
  }
  return inputs;
}

/** Inbox order by timestamp; the sort is stable, so signals of one instant keep the order they were given or held in. */
function inInboxOrder(a: SignalInput, b: SignalInput): number {
  return Date.parse(a.signal.timestamp) - Date.parse(b.signal.timestamp);
}

/**
 * Whether a signal of the inbox still waits for this lifecycle: not in its dedupe record or held list,
 * and — with dedupe `until-ack` — not acknowledged (an acknowledged signal is taken).
 */
export function awaitsApply(envelope: LifecycleEnvelope, message: SignalMessage): boolean {
  if (envelope.processed.includes(message.id) || envelope.held?.some((h) => h.id === message.id)) return false;
  return !(envelope.dedupe && message.acknowledged);
}
