import { RefusedError } from '../../core/errors.js';
import { getTeam, statusOf } from '../../core/find-team.js';
import { teamWorkspacePath } from '../../core/layout.js';
import { ANY_HOST, type RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { recordFederationEvent } from '../../engine/federation/federation-journal.js';
import { updateRegistry } from '../../engine/registry/update-registry.js';
import type { HeardHost, HostDirectory } from '../../ports/host-directory.js';
import { hostState } from './host-liveness.js';

export interface MoveOptions {
  /** A server's failover: move the team only if it is still placed on this (lost) host, else leave it. */
  from?: string;
}

export interface MovedTeam {
  team: string;
  from: string | null;
  to: string;
  /** Its workspace on the new host. */
  location: string;
  /** False when it was placed there already (or, with `from`, had been moved away meanwhile). */
  moved: boolean;
}

/**
 * `fed team move <team> --to <host>`: place a team on another host. The registry entry's `host` and
 * `location` change in one compare-and-swap, so of two movers (a person, failover on several servers)
 * one wins and the others see it moved. From then on only the new host's server dispatches the team and
 * applies its signals: it makes the workspace there and resumes the team from its lifecycle state, which
 * JetStream holds. The old host's server, should it come back, finds the team placed elsewhere.
 *
 * Refused: on files (one host), to a host that is not alive, away from a host that still is (its server
 * may run the team's agent right now), and for a worktree team (its branch is in that machine's clone).
 */
export async function moveTeam(
  fed: Federation,
  name: string,
  to: string,
  options: MoveOptions = {},
): Promise<MovedTeam> {
  const directory = fed.backend.hosts;
  if (!directory)
    throw new RefusedError(
      'MOVE_UNSUPPORTED',
      'this federation keeps its teams in files: every team works on this one machine, so there is no other host to move one to (the JetStream backend shares teams across machines: docs/jetstream.md)',
    );
  const hosts = new Map((await directory.list()).map((host) => [host.record.name, host]));
  const target = aliveHost(fed, directory, hosts, to);
  let result: MovedTeam | undefined;
  await updateRegistry(fed, (registry) => {
    const entry = getTeam(registry, name);
    const from = entry.host ?? null;
    result = { team: entry.domainId, from, to, location: entry.location, moved: false };
    if (entry.host === to || (options.from !== undefined && entry.host !== options.from)) return undefined;
    refuseMove(fed, entry, hosts);
    result = { ...result, location: workspaceUnder(target.record.root, entry), moved: true };
    Object.assign(entry, { host: to, location: result.location });
    return registry;
  });
  const { moved } = result!;
  if (moved)
    await recordFederationEvent(fed.backend, {
      kind: 'moved',
      team: result!.team,
      from: result!.from,
      to,
      location: result!.location,
      by: options.from === undefined ? 'person' : 'failover',
    });
  return result!;
}

/** Where a team's workspace is in the working directory `root` of a host: where onboarding there makes it. */
const workspaceUnder = (root: string, entry: RegistryEntry) =>
  teamWorkspacePath(root, entry.domain, entry.placementType);

/**
 * An unplaced team's work taken by this host's server (`root` its working directory): the registry's
 * `location` becomes the workspace here, in one compare-and-swap as a move makes it, so this host's
 * actors and launches own the team from now on (the others find it elsewhere). Returns the entry as it
 * is now; unchanged when the team ran here last, or is no longer unplaced (a person placed it meanwhile).
 */
export async function claimUnplacedTeam(fed: Federation, name: string, root: string): Promise<RegistryEntry> {
  let claimed: RegistryEntry | undefined;
  await updateRegistry(fed, (registry) => {
    const entry = getTeam(registry, name);
    claimed = entry;
    const location = workspaceUnder(root, entry);
    if (entry.host !== ANY_HOST || entry.location === location) return undefined;
    entry.location = location;
    return registry;
  });
  return { ...claimed! };
}

function aliveHost(fed: Federation, directory: HostDirectory, hosts: Map<string, HeardHost>, to: string): HeardHost {
  const target = hosts.get(to);
  if (!target) {
    const known = [...hosts.keys()];
    throw new RefusedError(
      'UNKNOWN_HOST',
      `no host named ${to} serves this federation (${directory.location} has ${known.length ? known.join(', ') : 'none'}); start fed serve there first, then move the team (fed hosts lists them)`,
    );
  }
  const { state } = hostState(fed.config.serve, target, fed.now());
  if (state !== 'alive')
    throw new RefusedError(
      'HOST_NOT_ALIVE',
      `host ${to} is ${state}: a team moved there would wait for its server; start fed serve on ${to}, or move the team to an alive host (fed hosts lists them)`,
    );
  return target;
}

/** What stops a team from leaving its host: archived, a worktree, or a host still alive. */
function refuseMove(fed: Federation, entry: RegistryEntry, hosts: Map<string, HeardHost>): void {
  if (statusOf(entry) === 'archived')
    throw new RefusedError('TEAM_ARCHIVED', `team "${entry.domainId}" is archived; it runs nowhere`);
  if (entry.placementType === 'worktree')
    throw new RefusedError(
      'MOVE_UNSUPPORTED',
      `team "${entry.domainId}" works in a git worktree, whose branch lives in its host's clone; moving worktree teams is not supported yet — archive it and onboard a new team on the other host`,
    );
  const current = entry.host === undefined ? undefined : hosts.get(entry.host);
  if (current && hostState(fed.config.serve, current, fed.now()).state === 'alive')
    throw new RefusedError(
      'HOST_STILL_ALIVE',
      `team "${entry.domainId}" is placed on host ${entry.host}, which is alive: its server may be running the team's agent right now; stop fed serve there (SIGTERM pauses the team) and move it then`,
    );
}
