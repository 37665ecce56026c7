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
   * writer in between makes it throw `RegistryConflictError` and change nothing.
   */
  commit(expectedVersion: number, next: Registry, options?: RegistryCommitOptions): Promise<Registry>;
  /** Store `initial` if there is no registry yet (`fed init`); false when one exists (it is left as it is). */
  create(initial: Registry, options?: RegistryCommitOptions): Promise<boolean>;
}
