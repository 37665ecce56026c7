import { setTimeout as sleep } from 'node:timers/promises';
import { federationPaths } from '../layout.js';
import type { Registry } from '../schema/registry.js';
import { recordRegistryConflict } from '../telemetry/fed-metrics.js';
import { commitRegistry, readRegistry, RegistryConflictError, type CommitOptions } from './registry-file.js';

export interface UpdateOptions extends CommitOptions {
  /** Attempts before giving up with a RegistryConflictError (default 100). */
  maxAttempts?: number;
  /** Called once per conflict, e.g. to count conflicts in telemetry. */
  onConflict?: (error: RegistryConflictError) => void;
}

export interface UpdateResult {
  registry: Registry;
  /** False when the mutation decided nothing needed to change (no write happened). */
  changed: boolean;
  attempts: number;
}

/**
 * Optimistic read-modify-write of the registry. `mutate` gets a private copy and returns the new
 * registry, or `undefined` for "nothing to change"; it may throw to refuse (the error propagates and
 * nothing is written). On a version conflict the registry is re-read and `mutate` runs again after a
 * jittered exponential backoff, so concurrent writers all land and none overwrites another.
 */
export async function updateRegistry(
  root: string,
  mutate: (current: Registry) => Registry | undefined,
  options: UpdateOptions = {},
): Promise<UpdateResult> {
  const maxAttempts = options.maxAttempts ?? 100;
  let lastConflict: RegistryConflictError | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const current = readRegistry(root);
    const next = mutate(structuredClone(current));
    if (next === undefined) return { registry: current, changed: false, attempts: attempt };
    try {
      const registry = await commitRegistry(root, current.lockVersion, next, options);
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
    federationPaths(root).registry,
    lastConflict?.expected ?? -1,
    lastConflict?.actual ?? -1,
    maxAttempts,
  );
}
