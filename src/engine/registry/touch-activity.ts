import type { RegistryEntry } from '../../core/schema/registry.js';
import { findTeam } from '../../core/find-team.js';
import { updateRegistry, type UpdateOptions } from './update-registry.js';
import type { Federation } from '../context.js';

/** Activity younger than this is not worth a registry write (every write bumps `lockVersion`). */
export const ACTIVITY_RESOLUTION_MS = 60_000;

export function activityIsStale(entry: RegistryEntry, now: Date, resolutionMs = ACTIVITY_RESOLUTION_MS): boolean {
  const last = entry.lastActive ? Date.parse(entry.lastActive) : Number.NaN;
  return Number.isNaN(last) || now.getTime() - last >= resolutionMs;
}

/**
 * Record activity of a team (docs/design/spec.md §2.4 `lastActive`: signal sent, status update, …). Refreshed only when
 * older than `resolutionMs`, so a busy team does not turn every signal into a registry write; returns
 * whether a write happened. Unknown teams (and `meta`) are ignored.
 */
export async function touchLastActive(
  fed: Federation,
  team: string,
  options: UpdateOptions & { resolutionMs?: number } = {},
): Promise<boolean> {
  const now = options.now?.() ?? fed.now();
  const result = await updateRegistry(
    fed,
    (registry) => {
      const entry = findTeam(registry, team);
      if (!entry || !activityIsStale(entry, now, options.resolutionMs)) return undefined;
      entry.lastActive = now.toISOString();
      return registry;
    },
    options,
  );
  return result.changed;
}
