import type { JournalLine, LifecycleEnvelope } from '../core/schema/lifecycle-state.js';
import type { RegistryEntry } from '../core/schema/registry.js';
import type { LockOwner } from '../core/schema/lock-owner.js';

/**
 * The lifecycle store port: per team, the snapshot envelope (the single source of truth of its
 * lifecycle, replaced as a whole), a journal of applied events, and an exclusive section that
 * serialises every change of the lifecycle (and archiving) across processes (docs/design/invariants.md #6–8).
 * A team is addressed by its registry entry.
 */

/** Opaque version of a stored envelope; `null` stands for "no envelope stored yet". */
export type EnvelopeVersion = string | null;

export interface StoredEnvelope {
  envelope: LifecycleEnvelope;
  version: EnvelopeVersion;
}

/** Held while a team's lifecycle is being changed; one per team across all processes. */
export interface LifecycleSection {
  readonly team: string;
  /** Throws when the section was lost meanwhile (taken over, or removed by hand); a writer must then not write. */
  assertHeld(): void;
}

/** An earlier run of a team's lifecycle, kept when `fed team retry` (or a new mission) started another. */
export interface KeptRun {
  /** The run's number; the first run of a team is 1. */
  run: number;
  /** Where it is kept, to show to a person. */
  location: string;
  /** The run's last envelope, as it was when the run was kept. */
  envelope: LifecycleEnvelope;
}

export interface LifecycleWriteOptions {
  /** Survive a power loss before the call returns (default true). */
  durable?: boolean;
}

export interface LifecycleStore {
  /** Where the team's envelope is, to show to a person in messages. */
  envelopeLocation(team: RegistryEntry): string;
  /**
   * The version of the stored envelope (null when none), without reading or validating it: a holder of a
   * loaded envelope asks this to learn cheaply whether another process wrote since.
   */
  version(team: RegistryEntry): Promise<EnvelopeVersion>;
  /** The stored envelope (schema-validated) and its version; undefined when the team has none yet. Broken ones are reported, never replaced. */
  read(team: RegistryEntry): Promise<StoredEnvelope | undefined>;
  /**
   * Replace the envelope as a whole if it is still at `expected` (compare-and-swap), inside `section`;
   * readers see the old or the new envelope, never a mix. A different stored version throws
   * `LIFECYCLE_CONFLICT`; a lost section throws and writes nothing. Returns the new version.
   */
  write(
    team: RegistryEntry,
    envelope: LifecycleEnvelope,
    expected: EnvelopeVersion,
    section: LifecycleSection,
    options?: LifecycleWriteOptions,
  ): Promise<EnvelopeVersion>;
  /**
   * Run `fn` holding the team's exclusive section. Waits for a live holder (up to a minute, then
   * `LOCK_TIMEOUT`); a holder whose process is gone is taken over.
   */
  exclusive<T>(
    team: RegistryEntry,
    fn: (section: LifecycleSection) => Promise<T>,
    options?: LifecycleWriteOptions,
  ): Promise<T>;
  /**
   * Who holds the team's exclusive section right now, when a holder that may still be alive does (one on
   * another host counts until it is stale); undefined when none does, or its holder is gone. Reads only: a
   * check asks it before taking a command's write in progress for what a killed one left.
   */
  sectionHolder(team: RegistryEntry): Promise<{ owner: LockOwner | undefined } | undefined>;
  /** Append the lines whose `seq` the journal does not have yet (idempotent by seq); returns how many were added. */
  appendJournal(team: RegistryEntry, lines: readonly JournalLine[], options?: LifecycleWriteOptions): Promise<number>;
  /** The last `count` journal lines of the current run, oldest first. */
  journalTail(team: RegistryEntry, count: number): Promise<JournalLine[]>;
  /** The whole journal of the current run, or of kept run `run`, oldest first; torn lines are skipped. */
  journal(team: RegistryEntry, run?: number): Promise<JournalLine[]>;
  /** The kept earlier runs, oldest first. */
  keptRuns(team: RegistryEntry): Promise<KeptRun[]>;
  /**
   * Inside `section`: keep the current run (its envelope and journal) as the next earlier run, so that the
   * journal of the run written next starts empty (its `seq` going on). Never overwrites a kept run, and is
   * idempotent: when the last kept run already holds this very envelope (a retry interrupted after keeping
   * it, and run again), that run is returned and nothing is kept twice.
   */
  keepRun(team: RegistryEntry, section: LifecycleSection, options?: LifecycleWriteOptions): Promise<KeptRun>;
}
