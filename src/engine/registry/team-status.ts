import { transition } from 'xstate';
import { getTeamStatusMachine, type TeamStatusEvent } from '../../../machines/team-status.machine.js';
import { RefusedError } from '../../core/errors.js';
import type { RegistryEntry, TeamStatus } from '../../core/schema/registry.js';
import { getTeam, statusOf } from '../../core/find-team.js';
import { updateRegistry, type UpdateOptions } from './update-registry.js';
import type { Federation } from '../context.js';

/** The CLI verb for each status event, so refusals can name the commands that would work. */
export const TEAM_STATUS_COMMANDS: Record<TeamStatusEvent['type'], string> = {
  PAUSE: 'pause',
  RESUME: 'resume',
  ARCHIVE: 'archive',
};

const ALL_EVENTS = Object.keys(TEAM_STATUS_COMMANDS) as TeamStatusEvent['type'][];

export function allowedStatusEvents(status: TeamStatus): TeamStatusEvent['type'][] {
  const snapshot = getTeamStatusMachine().resolveState({ value: status, context: undefined });
  return ALL_EVENTS.filter((type) => snapshot.can({ type }));
}

/** Apply one event of the team-status machine to a status; an event the status does not accept is refused. */
export function nextTeamStatus(team: string, status: TeamStatus, event: TeamStatusEvent): TeamStatus {
  const snapshot = getTeamStatusMachine().resolveState({ value: status, context: undefined });
  if (!snapshot.can(event)) {
    const allowed = allowedStatusEvents(status).map((type) => `fed team ${TEAM_STATUS_COMMANDS[type]} ${team}`);
    throw new RefusedError(
      'ILLEGAL_TRANSITION',
      `cannot ${TEAM_STATUS_COMMANDS[event.type]} team "${team}": it is ${status}; ` +
        (allowed.length ? `allowed: ${allowed.join(', ')}` : `${status} is final, no command changes it`),
    );
  }
  const [next] = transition(getTeamStatusMachine(), snapshot, event);
  return next.value as TeamStatus;
}

export interface StatusChange {
  team: RegistryEntry;
  from: TeamStatus;
  to: TeamStatus;
}

/**
 * Move a team's **registry** status through its machine, and nothing else. Commands use setTeamStatus
 * (actors/team-status-command.ts), which moves a team's lifecycle too: for a team with a lifecycle, a
 * registry-only pause or resume would be undone by the lifecycle at its next apply.
 */
export async function writeRegistryStatus(
  fed: Federation,
  team: string,
  event: TeamStatusEvent,
  options: UpdateOptions = {},
): Promise<StatusChange> {
  let change: StatusChange | undefined;
  await updateRegistry(
    fed,
    (registry) => {
      const entry = getTeam(registry, team);
      const from = statusOf(entry);
      const to = nextTeamStatus(entry.domainId, from, event);
      entry.status = to;
      entry.lastActive = (options.now?.() ?? fed.now()).toISOString();
      change = { team: entry, from, to };
      return registry;
    },
    options,
  );
  return change!;
}
