import { RefusedError } from '../../core/errors.js';
import { getTeam, statusOf } from '../../core/find-team.js';
import { teamWorkspacePath, worktreeBranch } from '../../core/layout.js';
import { ANY_HOST, type RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { recordFederationEvent } from '../../engine/federation/federation-journal.js';
import { updateRegistry } from '../../engine/registry/update-registry.js';
import type { HeardHost, HostDirectory } from '../../ports/host-directory.js';
import { remoteHasCommit } from '../../engine/registry/codebase.js';
import { GitCommandError } from '../../engine/registry/git.js';
import { hostState } from './host-liveness.js';
import type { StoreContact } from './store-contact.js';

export interface MoveOptions {
  /** A server's failover: move the team only if it is still placed on this (lost) host, else leave it. */
  from?: string;
  /** A server's failover: its touch with the store, by which it judged the host lost (hostState's `watchingSince`). */
  watching?: StoreContact;
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
 * may run the team's agent right now), and for a worktree team whose commit the codebase's remote does not
 * have (the new host makes its worktree from its own clone at that commit: refuseUnfetchableCommit).
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
  options.watching?.answered(fed.now());
  const target = aliveHost(fed, directory, hosts, to);
  // A move there would make (not a team placed there already, nor one a failover finds moved meanwhile).
  const leaves = (entry: RegistryEntry) =>
    entry.host !== to && (options.from === undefined || entry.host === options.from);
  const before = getTeam(await fed.backend.registry.read(), name);
  if (leaves(before)) {
    refuseMove(fed, before, hosts, options.watching);
    // Asked of the remote before the registry changes, outside its compare-and-swap: it may take a while.
    await refuseUnfetchableCommit(fed.root, before);
  }
  let result: MovedTeam | undefined;
  await updateRegistry(fed, (registry) => {
    const entry = getTeam(registry, name);
    const from = entry.host ?? null;
    result = { team: entry.domainId, from, to, location: entry.location, moved: false };
    if (!leaves(entry)) return undefined;
    refuseMove(fed, entry, hosts, options.watching);
    if (entry.codebase?.commit !== before.codebase?.commit)
      throw new RefusedError(
        'REGISTRY_CONFLICT',
        `team "${entry.domainId}" recorded a new commit while it was being moved; move it again`,
      );
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

/** What stops a team from leaving its host: archived, or a host still alive (as `watching` could hear it). */
function refuseMove(
  fed: Federation,
  entry: RegistryEntry,
  hosts: Map<string, HeardHost>,
  watching: StoreContact | undefined,
): void {
  if (statusOf(entry) === 'archived')
    throw new RefusedError('TEAM_ARCHIVED', `team "${entry.domainId}" is archived; it runs nowhere`);
  const current = entry.host === undefined ? undefined : hosts.get(entry.host);
  const now = fed.now();
  if (current && hostState(fed.config.serve, current, now, watching?.since(now)).state === 'alive')
    throw new RefusedError(
      'HOST_STILL_ALIVE',
      `team "${entry.domainId}" is placed on host ${entry.host}, which is alive: its server may be running the team's agent right now; stop fed serve there (SIGTERM pauses the team) and move it then`,
    );
}

/**
 * A worktree team's workspace is made on the new host from that host's clone of the codebase, at the commit
 * the team worked on (registry `codebase`), fetched from the codebase's remote when the clone lacks it. So
 * the commit must be on the remote — a branch or tag of it at that commit or at one built on it — or the
 * move would lose the commits only the old host's clone holds: refused by name, never a move that silently
 * drops them. The remote is asked from `root` (this machine's working directory, whose clone fetches the
 * remote's heads to look for the commit among their ancestors).
 */
export async function refuseUnfetchableCommit(root: string, entry: RegistryEntry): Promise<void> {
  if (entry.placementType !== 'worktree') return;
  const name = `team "${entry.domainId}"`;
  const branch = worktreeBranch(entry.domain);
  const { codebase } = entry;
  if (!codebase)
    throw new RefusedError(
      'MOVE_UNSUPPORTED',
      `${name} works in a git worktree, and the commit it worked on is not recorded (it was onboarded by an older fed, or its codebase is no git repository): its workspace cannot be made on another host. fed serve records it after the team's next launch on host ${entry.host}; or archive the team and onboard a new one on the other host`,
    );
  const push = (remote: string) =>
    `push it from a clone that has it (git push ${remote} ${codebase.commit}:refs/heads/${branch}) and move the team then; with serve.pushTeamBranches, fed serve pushes the branch after each launch`;
  if (codebase.remote === undefined)
    throw new RefusedError(
      'TEAM_COMMIT_UNPUSHED',
      `${name} worked on commit ${codebase.commit} (branch ${branch}), and its codebase had no git remote at onboarding: the commit is only in host ${entry.host}'s clone, and moving the team would lose it; add a remote and ${push('<remote>')}`,
    );
  let pushed: boolean;
  try {
    pushed = await remoteHasCommit(root, codebase.remote, codebase.commit);
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    throw new RefusedError(
      'REMOTE_UNREACHABLE',
      `${name} worked on commit ${codebase.commit} (branch ${branch}), and its codebase's remote ${codebase.remote} could not be asked whether it has it (${error.stderr || error.message}); check that this machine reaches it, and move the team again`,
    );
  }
  if (!pushed)
    throw new RefusedError(
      'TEAM_COMMIT_UNPUSHED',
      `${name} worked on commit ${codebase.commit} (branch ${branch}), which no branch or tag of its remote ${codebase.remote} holds: moving the team would lose the commits only host ${entry.host}'s clone has; ${push(codebase.remote)}`,
    );
}
