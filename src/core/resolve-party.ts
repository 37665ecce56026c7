import { RefusedError, UnknownTeamError } from './errors.js';
import { findTeam, statusOf } from './find-team.js';
import { META } from './schema/common.js';
import type { Registry, RegistryEntry } from './schema/registry.js';

/** A party of the protocol: `meta` (no registry entry) or a registered team, as the registry describes it. */
export interface SignalParty {
  /** `meta`, or the team's `domainId`: what signals carry in `from`/`to`. */
  id: string;
  /** The team's registry entry; undefined for `meta`. An adapter may use it to find where the party's boxes are. */
  entry: RegistryEntry | undefined;
}

/** Meta and the teams, as parties: whose boxes a look at the whole federation goes through, meta's first. */
export function everyParty(teams: readonly RegistryEntry[]): SignalParty[] {
  return [{ id: META, entry: undefined }, ...teams.map((entry) => ({ id: entry.domainId, entry }))];
}

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
    const error = new UnknownTeamError(
      name,
      registry.teams.map((t) => t.domainId),
    );
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

/** Who runs a command that reads or acknowledges a party's boxes: see assertOwnParty. */
export interface CallerOption {
  /** The team the command runs as (its workspace, or `$FED_TEAM`); undefined: meta at the root, for any party. */
  caller?: string;
}

/** The caller's id as the registry names it (a domain given for a team is its id). */
export function callerIdOf(registry: Registry, caller: string): string {
  return caller === META ? META : (findTeam(registry, caller)?.domainId ?? caller);
}

/**
 * A team reads, acknowledges and watches only its own boxes: `party` (whose boxes) must be `caller`, as
 * for assertActsAsCaller — else another team's agent could empty meta's "Needs you" by acknowledging its
 * inbox, or read what other teams were told.
 */
export function assertOwnParty(registry: Registry, caller: string | undefined, party: string, role: string): void {
  if (caller === undefined) return;
  const callerId = callerIdOf(registry, caller);
  if (party === callerId) return;
  throw new RefusedError(
    'TEAM_NOT_CALLER',
    `${role}: this command runs as team "${callerId}" (its workspace, or $FED_TEAM), which reads, acknowledges and watches only its own boxes and signals, not those of "${party}"; leave the option out, or run the command as meta from the federation root without FED_TEAM`,
  );
}

/**
 * A team acts only as itself: `caller` is who runs the command — the team whose workspace it runs in, or
 * `$FED_TEAM` (a launched agent) — and `party` the one it would act as (a signal's sender, the team whose
 * lifecycle an event moves). Without a caller the command runs as meta at the federation root, whose
 * operator acts for any party. `role` names the option that chose the party, e.g. `sender (--from)`.
 */
export function assertActsAsCaller(registry: Registry, caller: string | undefined, party: string, role: string): void {
  if (caller === undefined) return;
  const callerId = callerIdOf(registry, caller);
  if (party === callerId) return;
  throw new RefusedError(
    'SENDER_NOT_CALLER',
    `${role}: this command runs as team "${callerId}" (its workspace, or $FED_TEAM), which cannot act as "${party}": a team sends signals and reports events only as itself; leave the option out, or run the command as meta from the federation root without FED_TEAM`,
  );
}
