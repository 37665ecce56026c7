import { UnknownTeamError } from './errors.js';
import type { Registry, RegistryEntry, TeamStatus } from './schema/registry.js';

/** Look a team up by its id, or by its domain name when that is unambiguous. */
export function findTeam(registry: Registry, team: string): RegistryEntry | undefined {
  return registry.teams.find((t) => t.domainId === team) ?? registry.teams.find((t) => t.domain === team);
}

export function getTeam(registry: Registry, team: string): RegistryEntry {
  const entry = findTeam(registry, team);
  if (!entry)
    throw new UnknownTeamError(
      team,
      registry.teams.map((t) => t.domainId),
    );
  return entry;
}

/** The spec makes `status` optional; a team without one has never been paused or archived. */
export function statusOf(entry: RegistryEntry): TeamStatus {
  return entry.status ?? 'active';
}

/**
 * Whether two registry entries are one team, not merely one name: a team removed and onboarded again
 * under its old name is another team (its own workspace, signals and runs) and has another `onboardedAt`.
 * Its location is left out: `fed doctor --fix` rewrites it for a federation folder that was moved.
 */
export function isSameTeam(a: RegistryEntry, b: RegistryEntry): boolean {
  return (
    a.domainId === b.domainId &&
    a.domain === b.domain &&
    a.placementType === b.placementType &&
    a.onboardedAt === b.onboardedAt
  );
}
