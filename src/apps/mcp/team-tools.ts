import type { Federation } from '../../engine/context.js';
import type { RegistryEntry } from '../../core/schema/registry.js';

/** What every tool of a team's server works with: the federation, and the one team it acts as. */
export interface TeamToolContext {
  fed: Federation;
  /** The team's domain id; every tool acts as this team and no other. */
  teamId: string;
  /** The team's registry entry as it is now (read again per call: its status changes while the agent runs). */
  team(): Promise<RegistryEntry>;
}

export function teamToolContext(fed: Federation, teamId: string): TeamToolContext {
  return { fed, teamId, team: () => fed.team(teamId) };
}
