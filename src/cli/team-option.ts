import { InvalidInputError } from '../core/errors.js';
import type { FederationLocation } from '../apps/init/locate.js';

/**
 * The team a command is about: `--team`, else the team of the workspace the command runs in (its marker)
 * or `$FED_TEAM` (set for launched agents). `usage` shows how to name it when neither is there.
 */
export function requireTeam(option: string | undefined, location: FederationLocation, usage: string): string {
  const team = option ?? location.team;
  if (!team)
    throw new InvalidInputError(`which team? pass --team <team> (${usage}), or run this inside the team's workspace`);
  return team;
}
