import type { JournalLine, LifecycleEnvelope } from '../schema/lifecycle-state.js';
import type { RegistryEntry } from '../schema/registry.js';

/**
 * The lifecycle store port: per team, the snapshot envelope (the single source of truth of its
 * lifecycle, replaced as a whole), a journal of applied events, and an exclusive section that
 * serialises every change of the lifecycle (and archiving) across processes (ARCHITECTURE invariants 6–8).
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
  write(team: RegistryEntry, envelope: LifecycleEnvelope, expected: EnvelopeVersion, section: LifecycleSection, options?: LifecycleWriteOptions): Promise<EnvelopeVersion>;
  /**
   * Run `fn` holding the team's exclusive section. Waits for a live holder (up to a minute, then
   * `LOCK_TIMEOUT`); a holder whose process is gone is taken over.
   */
  exclusive<T>(team: RegistryEntry, fn: (section: LifecycleSection) => Promise<T>, options?: LifecycleWriteOptions): Promise<T>;
  /** Append the lines whose `seq` the journal does not have yet (idempotent by seq); returns how many were added. */
  appendJournal(team: RegistryEntry, lines: readonly JournalLine[], options?: LifecycleWriteOptions): Promise<number>;
  /** The last `count` journal lines, oldest first. */
  journalTail(team: RegistryEntry, count: number): Promise<JournalLine[]>;
}
