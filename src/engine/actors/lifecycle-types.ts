import type { InspectionEvent } from 'xstate';
import type { MachineEntry } from '../../../machines/catalog.js';
import type { LifecycleSnapshot } from '../../../machines/lifecycle-machine.js';
import type { JournalLine, LifecycleEnvelope } from '../../core/schema/lifecycle-state.js';
import type { RegistryEntry, TeamStatus } from '../../core/schema/registry.js';
import type { SignalMessage } from '../../core/schema/signal.js';
import type { WriteOptions } from '../../infra/fs/atomic-write.js';
import type { EnvelopeVersion } from '../../ports/lifecycle-store.js';

/** A team's lifecycle as loaded from the lifecycle store: its machine, snapshot and stored envelope. */
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
  /**
   * When the apply found the lifecycle at ApplyOptions.inboxReadAgainst: the version it is at now, which
   * the caller's read of the inbox still holds against (this write took only signals it was given).
   */
  inboxReadAgainst?: EnvelopeVersion;
  /**
   * The registry status this apply brought in line with the lifecycle, when it found them apart — left
   * so by a `fed team pause|resume` stopped between its two writes (the lifecycle's, then the registry's).
   */
  registryStatusSynced?: TeamStatus;
}

export interface ApplyOptions extends WriteOptions {
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
   * The stored version of the lifecycle (TeamLifecycle.version) that was loaded before the caller read the
   * inbox its signals come from. Under the section, a lifecycle still at that version has had no write
   * since, so no signal was taken meanwhile; otherwise each signal not in the dedupe record is looked up
   * again, and one acknowledged since is a duplicate (taken-signals.ts). A caller that read its signals
   * from the inbox (the team actor, `fed signal ack`) gives it; undefined: none is looked up.
   */
  inboxReadAgainst?: EnvelopeVersion;
  /**
   * Write even when no input changed anything, if that drops `acknowledged` ids from the dedupe record,
   * adopts dedupe `until-ack` or applies held signals: snapshot, `seq`, `savedAt` and owed effects are kept.
   */
  compact?: boolean;
  /**
   * Called with the processed signal ids right after the envelope is saved (or found to need no write),
   * before the effects are settled: the ack follows the envelope write directly (the data flow of docs/design/invariants.md),
   * and a slow report to meta or registry write never delays it.
   */
  afterSave?: (processedSignalIds: readonly string[]) => Promise<void>;
  /**
   * Told at each crash point of a write, in order: before the envelope write, after it (before the
   * caller's `afterSave` acknowledgments), and after those. The exactly-once conformance suite arms it to
   * SIGKILL its process at one of them (test/conformance/exactly-once.suite.ts); nothing else sets it.
   */
  faultPoint?: (point: ApplyFaultPoint) => void;
}

/** Where an apply's write can be cut short: what a crash there leaves is what the next apply heals. */
export type ApplyFaultPoint = 'before-persist' | 'after-persist' | 'after-ack';
