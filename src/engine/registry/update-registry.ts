import { setTimeout as sleep } from 'node:timers/promises';
import { RegistryConflictError } from '../../core/errors.js';
import type { RegistryCommitOptions, RegistryStore } from '../../ports/registry-store.js';
import type { Registry } from '../../core/schema/registry.js';
import { recordRegistryConflict } from '../../infra/telemetry/fed-metrics.js';
import type { LockOptions } from '../../infra/fs/lock.js';
import type { Federation } from '../context.js';

export interface UpdateOptions extends RegistryCommitOptions {
  /** How long the file store waits for its short commit lock (src/infra/fs/lock.ts); other stores ignore it. */
  lock?: LockOptions;
  /** Attempts before giving up with a RegistryConflictError (default 100). */
  maxAttempts?: number;
  /** Called once per conflict, e.g. to count conflicts in telemetry. */
  onConflict?: (error: RegistryConflictError) => void;
  /** The registry as the caller just read it: the first attempt starts from it instead of reading again (a stale one is a conflict, then re-read). */
  current?: Registry;
}

export interface UpdateResult {
  registry: Registry;
  /** False when the mutation decided nothing needed to change (no write happened). */
  changed: boolean;
  attempts: number;
}

/** Optimistic read-modify-write of the federation's registry (see updateRegistryIn). */
export async function updateRegistry(
  fed: Federation,
  mutate: (current: Registry) => Registry | undefined,
  options: UpdateOptions = {},
): Promise<UpdateResult> {
  return updateRegistryIn(fed.backend.registry, mutate, options);
}

/**
 * Optimistic read-modify-write on any registry store. `mutate` gets a private copy and returns the new
 * registry, or `undefined` for "nothing to change"; it may throw to refuse (the error propagates and
 * nothing is written). On a version conflict the registry is re-read and `mutate` runs again after a
 * jittered exponential backoff, so concurrent writers all land and none overwrites another.
 */
export async function updateRegistryIn(
  store: RegistryStore,
  mutate: (current: Registry) => Registry | undefined,
  options: UpdateOptions = {},
): Promise<UpdateResult> {
  const maxAttempts = options.maxAttempts ?? 100;
  let lastConflict: RegistryConflictError | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const current = attempt === 1 && options.current ? options.current : await store.read();
    const next = mutate(structuredClone(current));
    if (next === undefined) return { registry: current, changed: false, attempts: attempt };
    try {
      const registry = await store.commit(current.lockVersion, next, options);
      return { registry, changed: true, attempts: attempt };
    } catch (error) {
      if (!(error instanceof RegistryConflictError)) throw error;
      lastConflict = error;
      recordRegistryConflict();
      options.onConflict?.(error);
      await sleep(Math.random() * Math.min(100, 2 * 2 ** Math.min(attempt, 6)));
    }
  }
  throw new RegistryConflictError(
    store.location,
    lastConflict?.expected ?? -1,
    lastConflict?.actual ?? -1,
    maxAttempts,
  );
}
