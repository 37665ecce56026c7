import type { RegistryEntry } from '../../core/schema/registry.js';
import { findTeam } from '../../core/find-team.js';
import { updateRegistry, type UpdateOptions } from './update-registry.js';
import type { Federation } from '../context.js';

/** Activity younger than this is not worth recording again (a line beside the registry, or a registry write). */
export const ACTIVITY_RESOLUTION_MS = 60_000;

export function activityIsStale(entry: RegistryEntry, now: Date, resolutionMs = ACTIVITY_RESOLUTION_MS): boolean {
  const last = entry.lastActive ? Date.parse(entry.lastActive) : Number.NaN;
  return Number.isNaN(last) || now.getTime() - last >= resolutionMs;
}

/**
 * Record activity of a team (docs/design/spec.md §2.4 `lastActive`: signal sent, status update, …). Refreshed only when
 * older than `resolutionMs`, so a busy team does not turn every signal into a write; returns whether one
 * happened — of its activity, where the store keeps it beside the registry (RegistryStore.touchActivity),
 * else of the registry. Unknown teams (and `meta`) are ignored.
 */
export async function touchLastActive(
  fed: Federation,
  team: string,
  options: UpdateOptions & {
    resolutionMs?: number;
    /**
     * The team's entry as the caller just read it (activity included): not read again to judge, and given
     * the activity recorded, so a later send of the caller's (a report owed, then a new one) judges it
     * recorded instead of appending it again.
     */
    entry?: RegistryEntry;
  } = {},
): Promise<boolean> {
  const now = options.now?.() ?? fed.now();
  const store = fed.backend.registry;
  if (store.touchActivity) {
    // The registry as reads give it (activity included) says whether this one is worth recording.
    const entry = options.entry ?? findTeam(await store.read(), team);
    if (!entry || !activityIsStale(entry, now, options.resolutionMs)) return false;
    await store.touchActivity(team, now.toISOString(), options);
    if (options.entry) options.entry.lastActive = now.toISOString();
    return true;
  }
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
