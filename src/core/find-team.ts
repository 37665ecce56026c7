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
