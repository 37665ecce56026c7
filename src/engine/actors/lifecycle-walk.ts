import type { InspectionEvent } from 'xstate';
import type { MachineEntry } from '../../../machines/catalog.js';
import type { LifecycleSnapshot } from '../../../machines/lifecycle-machine.js';
import { RefusedError } from '../../core/errors.js';
import type { HeldSignal, JournalLine, PendingReport } from '../../core/schema/lifecycle-state.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { refusalOf, stateRefusalOf, validateAgentEvent } from './event-checks.js';
import { inInboxOrder, readHeldSignals, type SignalInput } from './held-signals.js';
import { ApplyInspection, takeTransition, TransitionScope } from './lifecycle-transition.js';
import { reportSignalId } from './report-signal-id.js';
import { eventForSignal, signalCommand } from './signal-events.js';
import { stateOf } from './state-of.js';
import type { LifecycleChange, LifecycleStep, TeamLifecycle } from './lifecycle-types.js';

export interface WalkSetup {
  team: RegistryEntry;
  /** The lifecycle as loaded under the team's section: the walk starts from its snapshot and envelope. */
  lifecycle: TeamLifecycle;
  /** Where held signals are read back from. */
  backend: FederationBackend;
  /** The time stamped on events without one and on journal lines. */
  now: () => string;
  inspect?: (event: InspectionEvent) => void;
  /** The caller acknowledges the signals it gave: those still held at the end are kept in the envelope (ApplyOptions.keepHeld). */
  keepHeld?: boolean;
  /** The apply's warnings: a held signal that cannot be read back is told here. */
  warnings: string[];
  /** Ids of given signals another process took since the caller read them (taken-signals.ts): duplicates. */
  taken?: ReadonlySet<string>;
}

/**
 * One apply's way through its inputs, in memory: each input is deduplicated, held while the team is
 * paused, refused or ignored when the state does not accept it, or applied by a pure transition — and
 * recorded as a step, a journal line and the report a state change owes meta. Nothing is written here:
 * applyLifecycleInputs (team-lifecycle.ts) saves what the walk ends with in one envelope write.
 */
export class LifecycleWalk {
  snapshot: LifecycleSnapshot;
  seq: number;
  /** The dedupe record: ids of every signal applied or ignored, before and in this apply. */
  readonly processed: Set<string>;
  /** Ids of signals that are now processed (applied, ignored, duplicate, or held for the caller to acknowledge). */
  readonly processedNow: string[] = [];
  readonly steps: LifecycleStep[] = [];
  readonly lines: JournalLine[] = [];
  readonly reports: PendingReport[] = [];
  /** The envelope's held list once the walk is done. */
  nextHeld: HeldSignal[] = [];
  /** Signals held back while the team is paused, not yet applied. */
  private readonly held: SignalInput[] = [];
  /** Held signals of the envelope still waiting: those applied now leave the list in this write. */
  private keptHeld: readonly HeldSignal[];
  private readonly heldIds: Set<string>;
  /** Ids read back from the held list: acknowledged already, so held again (never dropped) if the team pauses again. */
  private readonly expanded = new Set<string>();
  private readonly entry: MachineEntry;
  private readonly inspection: ApplyInspection | undefined;
  /** Made at the walk's first move (a walk of ignored signals or held ones needs none). */
  private scope: TransitionScope | undefined;

  constructor(private readonly setup: WalkSetup) {
    const { lifecycle, team, inspect } = setup;
    const { envelope } = lifecycle;
    this.entry = lifecycle.entry;
    this.snapshot = lifecycle.snapshot;
    this.seq = envelope.seq;
    this.processed = new Set(envelope.processed);
    this.keptHeld = envelope.held ?? [];
    this.heldIds = new Set(this.keptHeld.map((h) => h.id));
    this.inspection = inspect ? new ApplyInspection(inspect, this.entry, team, this.snapshot) : undefined;
  }

  /** Whether signals were held back and are still waiting at the end (the team is paused). */
  get holdsBack(): boolean {
    return this.held.length > 0;
  }

  async run(inputs: readonly LifecycleChange[]): Promise<void> {
    const queue = [...inputs];
    for (;;) {
      if (stateOf(this.snapshot) !== 'paused') await this.releaseHeld(queue);
      const input = queue.shift();
      if (input === undefined) break;
      if (input.source === 'signal') this.takeSignal(input);
      else this.takeCommand(input);
    }
    this.holdUntilResumed();
  }

  /**
   * Signals that arrive while the team is paused wait (only a resume gets through); once the lifecycle
   * has left paused they go first, in inbox order, before the signals that came after the resume.
   */
  private async releaseHeld(queue: LifecycleChange[]): Promise<void> {
    // The envelope's held signals were acknowledged while paused: they are read back from the inbox.
    if (this.keptHeld.length > 0) {
      const stored = await readHeldSignals(this.setup.backend, this.setup.team, this.keptHeld, this.setup.warnings);
      this.keptHeld = [];
      for (const input of stored) {
        this.heldIds.delete(input.signal.id);
        this.expanded.add(input.signal.id);
      }
      this.held.push(...stored);
    }
    if (this.held.length > 0) queue.unshift(...this.held.splice(0).sort(inInboxOrder));
  }

  /** An inbox signal: a duplicate is skipped, one that arrives while paused held; an event the state does not accept is recorded as ignored. */
  private takeSignal(input: SignalInput): void {
    const { signal } = input;
    const from = stateOf(this.snapshot);
    if (this.processed.has(signal.id) || this.heldIds.has(signal.id) || this.setup.taken?.has(signal.id)) {
      this.steps.push({ outcome: 'duplicate', signalId: signal.id });
      this.processedNow.push(signal.id);
      return;
    }
    if (from === 'paused' && signalCommand(signal) !== 'resume') {
      this.held.push(input);
      return;
    }
    this.processed.add(signal.id);
    this.processedNow.push(signal.id);
    const event = eventForSignal(signal, this.snapshot);
    const refusal =
      event === undefined
        ? `a ${signal.type} changes no lifecycle`
        : refusalOf(this.entry, this.setup.team, this.snapshot, event);
    if (event === undefined || refusal !== undefined) {
      const note = `ignored: ${refusal}`;
      this.steps.push({
        outcome: 'ignored',
        signal,
        signalId: signal.id,
        note,
        line: this.record(event?.type ?? signal.type, from, 'signal', signal.id, note),
      });
      return;
    }
    this.move(event);
    this.steps.push({
      outcome: 'applied',
      signal,
      signalId: signal.id,
      line: this.record(event.type, from, 'signal', signal.id),
    });
  }

  /** An agent's event (validated; refused when the state does not accept it) or a registry command (ignored then). */
  private takeCommand(input: Exclude<LifecycleChange, SignalInput>): void {
    const { entry, setup } = this;
    const from = stateOf(this.snapshot);
    const notAccepted = (refusal: string) =>
      new RefusedError('EVENT_NOT_ACCEPTED', `team "${setup.team.domainId}" is ${from}: ${refusal}`);
    let event: { type: string; at?: string };
    if (input.source === 'event') {
      // An event of a known type is refused for the state before its data is checked: an agent told to add
      // a field would then be refused for the state anyway.
      const stateRefusal = entry.events.includes(input.event.type)
        ? stateRefusalOf(entry, this.snapshot, input.event.type)
        : undefined;
      if (stateRefusal !== undefined) throw notAccepted(stateRefusal);
      event = validateAgentEvent(entry, setup.team, input.event, setup.now());
    } else event = { ...input.event, at: input.event.at ?? setup.now() };
    const refusal = refusalOf(entry, setup.team, this.snapshot, event);
    if (refusal !== undefined) {
      if (input.source === 'event') throw notAccepted(refusal);
      this.steps.push({ outcome: 'ignored', note: `ignored: ${refusal}` });
      return;
    }
    this.move(event);
    this.steps.push({ outcome: 'applied', line: this.record(event.type, from, input.source) });
  }

  private move(event: { type: string }): void {
    this.scope ??= new TransitionScope(this.entry.machine);
    this.snapshot = takeTransition(this.entry, this.setup.team, this.snapshot, event, this.inspection, this.scope);
  }

  /** The journal line of a step (and the report a state change owes meta). */
  private record(
    event: string,
    from: string,
    source: JournalLine['source'],
    signalId?: string,
    note?: string,
  ): JournalLine {
    const line: JournalLine = {
      seq: ++this.seq,
      at: this.setup.now(),
      event,
      from,
      to: stateOf(this.snapshot),
      source,
    };
    if (signalId !== undefined) line.signalId = signalId;
    if (note !== undefined) line.note = note;
    this.lines.push(line);
    if (line.from !== line.to) this.reports.push(this.transitionReport(line));
    return line;
  }

  /** The report a state change owes meta; a failure says why. */
  private transitionReport(line: JournalLine): PendingReport {
    const { team } = this.setup;
    const why = line.signalId ? ` (signal ${line.signalId})` : line.source === 'registry' ? ' (fed team command)' : '';
    const { failure } = this.snapshot.context;
    const reason = line.to === 'failed' && failure ? ` Reason: ${failure.reason}` : '';
    return {
      signalId: reportSignalId(team, this.entry.id, line.seq),
      subject: `${line.from} → ${line.to}`,
      body: `Team ${team.domainId} (${this.entry.id} lifecycle) moved from ${line.from} to ${line.to} on ${line.event}${why} at ${line.at}.${reason}`,
    };
  }

  /**
   * Still paused at the end: the held signals wait for the resume, and are read again from the inbox then
   * — or, when the caller acknowledges them now, from the envelope's held list.
   */
  private holdUntilResumed(): void {
    const newlyHeld: HeldSignal[] = [];
    for (const input of this.held) {
      const id = input.signal.id;
      this.steps.push({ outcome: 'deferred', signalId: id });
      if (this.heldIds.has(id) || (!this.setup.keepHeld && !this.expanded.has(id))) continue;
      if (input.file === undefined) throw new Error(`keepHeld needs the inbox handle of signal ${id}`);
      newlyHeld.push({ id, file: input.file });
      this.heldIds.add(id);
      // The caller acknowledges what it gave; those read back from the held list are acknowledged already.
      if (!this.expanded.has(id)) this.processedNow.push(id);
    }
    this.nextHeld = [...this.keptHeld, ...newlyHeld];
  }
}
