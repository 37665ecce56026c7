import type { Registry } from '../core/schema/registry.js';

/**
 * The registry store port: the team registry (docs/design/spec.md §2.4) with optimistic concurrency on `lockVersion`
 * (docs/design/invariants.md #5). Read-modify-write with retries (`updateRegistryIn`,
 * src/engine/registry/update-registry.ts) is generic code on top of any store.
 */
export interface RegistryCommitOptions {
  /** Survive a power loss before the call returns (default true). */
  durable?: boolean;
  now?: () => Date;
}

/** A read-modify-write: the new registry made from `current` (the caller's to change), or undefined for "nothing to change". */
export type RegistryMutation = (current: Registry) => Registry | undefined;

export interface RegistryUpdate {
  /** What was stored, or the registry as it is when the mutation changed nothing. */
  registry: Registry;
  changed: boolean;
}

export interface RegistryStore {
  /** Where the registry is, to show to a person in messages. */
  readonly location: string;
  /**
   * The registry as stored, validated. A federation without one is refused with `NOT_A_FEDERATION`; a
   * broken one is reported (`FILE_CORRUPT`) and never replaced.
   */
  read(): Promise<Registry>;
  /**
   * Compare-and-swap: store `next` only if the registry is still at `expectedVersion`, with
   * `lastUpdated` = now and `lockVersion` = `expectedVersion + 1`; returns what was stored. Another
   * writer in between makes it throw `RegistryConflictError` and change nothing; the error carries the
   * registry as it is now (`current`) when the store read it anyway, so a retry need not read it again.
   */
  commit(expectedVersion: number, next: Registry, options?: RegistryCommitOptions): Promise<Registry>;
  /**
   * Optional, for a store that holds other writers off while it commits (the file store's commit lock):
   * the whole read-modify-write inside that — the registry read, `mutate` run on it, and what it returns
   * committed on top of the version just read (nothing when it returns undefined). No other writer can
   * land in between, so writers that contend for the registry take turns instead of conflicting and
   * going round again; the commit still checks, right before it replaces the registry, that it holds the
   * lock and the registry is the one it read, and throws `RegistryConflictError` when not (a writer that
   * stalled and lost its lock). A store without it is updated by read, then `commit`.
   */
  update?(mutate: RegistryMutation, options?: RegistryCommitOptions): Promise<RegistryUpdate>;
  /**
   * Optional, for a store whose reads cost a round trip (JetStream): start keeping a watched copy of the
   * registry for the rest of the store's life (idempotent; the next read fills the copy), for long-running
   * processes (`Federation.watchRegistry`, docs/jetstream.md "The watched registry"). `current()` is the
   * registry as it is now without a read — the copy while the store vouches for it: a registry write is
   * taken into account as soon as this process hears of it (the milliseconds a read-then-write race has
   * too), and the copy is never older than that — else undefined, and the caller reads. A store without
   * it is read each time.
   */
  watch?(): { current(): Registry | undefined };
  /**
   * Optional, for a store that keeps the teams' activity beside the registry instead of rewriting it (the
   * file store: src/adapters/file/team-activity-file.ts): record that `team` was active at `at` (ISO).
   * Reads give it as the team's `lastActive` when it is later. A store without it has `lastActive`
   * refreshed by an update.
   */
  touchActivity?(team: string, at: string, options?: RegistryCommitOptions): Promise<void>;
  /** Store `initial` if there is no registry yet (`fed init`); false when one exists (it is left as it is). */
  create(initial: Registry, options?: RegistryCommitOptions): Promise<boolean>;
}
