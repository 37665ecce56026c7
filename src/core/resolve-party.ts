import { RefusedError, UnknownTeamError } from './errors.js';
import type { SignalParty } from '../ports/signal-transport.js';
import { findTeam, statusOf } from './find-team.js';
import { META } from './schema/common.js';
import type { Registry } from './schema/registry.js';

export interface ResolvePartyOptions {
  /** Names the party in error messages, e.g. `recipient (--to)`. */
  role?: string;
  /** Reading an archived team's boxes is history and allowed; sending or acknowledging is refused. */
  allowArchived?: boolean;
}

/** A party of the signal protocol named by a person: `meta`, or a registered team by id or domain. */
export function resolveParty(registry: Registry, name: string, options: ResolvePartyOptions = {}): SignalParty {
  const role = options.role ?? 'team';
  if (name === META) return { id: META, entry: undefined };
  const entry = findTeam(registry, name);
  if (!entry) {
    const error = new UnknownTeamError(name, registry.teams.map((t) => t.domainId));
    // Say which option named the team: a default taken from FED_TEAM is easy to miss otherwise.
    error.message = `${role}: ${error.message}`;
    throw error;
  }
  if (statusOf(entry) === 'archived' && !options.allowArchived) {
    throw new RefusedError(
      'TEAM_ARCHIVED',
      `${role}: team "${entry.domainId}" is archived; archived teams neither send nor receive signals (list its history with: fed signal list --team ${entry.domainId})`,
    );
  }
  return { id: entry.domainId, entry };
}
