import { setTimeout as sleep } from 'node:timers/promises';
import { RegistryConflictError } from '../../core/errors.js';
import type { RegistryCommitOptions, RegistryMutation, RegistryStore } from '../../ports/registry-store.js';
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
  /**
   * The registry as the caller just read it: the first attempt starts from it instead of reading again (a
   * stale one is a conflict, then re-read). A store that updates under its own lock reads there instead.
   */
  current?: Registry;
}

export interface UpdateResult {
  registry: Registry;
  /** False when the mutation decided nothing needed to change (no write happened). */
  changed: boolean;
  attempts: number;
}

/** Read-modify-write of the federation's registry (see updateRegistryIn). */
export async function updateRegistry(
  fed: Federation,
  mutate: RegistryMutation,
  options: UpdateOptions = {},
): Promise<UpdateResult> {
  return updateRegistryIn(fed.backend.registry, mutate, options);
}

/**
 * Read-modify-write on any registry store. `mutate` gets a private copy and returns the new registry, or
 * `undefined` for "nothing to change"; it may throw to refuse (the error propagates and nothing is
 * written). A store that holds other writers off while it commits (the file store) runs the whole step
 * there (RegistryStore.update), so contending writers take turns; any other store is read, `mutate` runs
 * and the result is committed if the version is still the one read. On a conflict `mutate` runs again,
 * after a jittered exponential backoff, on the registry the store saw (or read again), so concurrent
 * writers all land and none overwrites another.
 */
export async function updateRegistryIn(
  store: RegistryStore,
  mutate: RegistryMutation,
  options: UpdateOptions = {},
): Promise<UpdateResult> {
  const maxAttempts = options.maxAttempts ?? 100;
  let lastConflict: RegistryConflictError | undefined;
  let current = options.current;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    try {
      if (store.update) return { ...(await store.update(mutate, options)), attempts: attempt };
      const read = current ?? (await store.read());
      const next = mutate(structuredClone(read));
      if (next === undefined) return { registry: read, changed: false, attempts: attempt };
      const registry = await store.commit(read.lockVersion, next, options);
      return { registry, changed: true, attempts: attempt };
    } catch (error) {
      if (!(error instanceof RegistryConflictError)) throw error;
      lastConflict = error;
      recordRegistryConflict();
      options.onConflict?.(error);
      await sleep(Math.random() * Math.min(100, 2 * 2 ** Math.min(attempt, 6)));
      // The registry as the store saw it when it found the conflict, or read again. Stores attach only a
      // validated registry (RegistryStore's contract), which errors.ts cannot name.
      current = (error as RegistryConflictError<Registry>).current;
    }
  }
  throw new RegistryConflictError(
    store.location,
    lastConflict?.expected ?? -1,
    lastConflict?.actual ?? -1,
    maxAttempts,
  );
}
