import { lstatSync } from 'node:fs';
import { FedError, RefusedError } from '../../core/errors.js';
import { locatedHere } from '../../adapters/index.js';
import { recordFederationEvent } from '../federation/federation-journal.js';
import { isLockHeld, releaseLock } from '../../infra/fs/lock.js';
import { editConfigFile } from '../../infra/config/edit-config.js';
import { teamWorkspacePath, workspacePaths, worktreeBranch } from '../../core/layout.js';
import type { FederationRecord } from '../../core/schema/federation-journal.js';
import type { Registry, RegistryEntry } from '../../core/schema/registry.js';
import { findTeam, getTeam, isSameTeam, statusOf } from '../../core/find-team.js';
import { gitSucceeds } from './git.js';
import { keepRemovedRuns } from './removed-runs.js';
import { branchExists, removeWorkspace } from './placement.js';
import { acquireDomainLock } from './domain-lock.js';
import { updateRegistry, type UpdateOptions } from './update-registry.js';
import type { Federation } from '../context.js';

export interface RemoveOptions extends UpdateOptions {
  /** Remove a worktree team's branch even when it is not merged (its commits are lost). */
  force?: boolean;
}

/**
 * `fed team remove`: retire an archived team for good — its workspace (a worktree team's worktree and
 * branch too) and its registry entry, through the registry's compare-and-swap. Only archived teams (an
 * archived team is never launched again), only a workspace fed created where it creates them, and a
 * branch whose commits are not merged into the federation's checked-out branch only with `force`. Its
 * agent settings in the config (`agent.teams.<id>`) and its schedules go too. The federation journal keeps
 * the record, and `.fed/removed-runs.jsonl` its runs (what they cost still counts). Re-running after an
 * interruption finishes the job: each step skips what is already gone.
 * One process at a time onboards or removes a domain (acquireDomainLock; another is refused, TEAM_BUSY),
 * and one that finds the team removed, or replaced by a team onboarded since under its name, is refused
 * (TEAM_CHANGED) before it deletes anything: of concurrent removes exactly one removes and journals it.
 */
export async function removeTeam(
  fed: Federation,
  name: string,
  options: RemoveOptions = {},
): Promise<Extract<FederationRecord, { kind: 'removed' }>> {
  const seen = archivedTeam(await fed.backend.registry.read(), name);
  // The registry read above may be stale by the time anything is deleted: another remove, then an
  // onboarding of the same name, may have come in between. Under the domain's lock (which onboarding
  // holds until its team is registered) the team is looked up again, and must be the very one seen.
  const lock = await acquireDomainLock(fed, seen.domain, `remove team "${seen.domainId}"`, options);
  try {
    const entry = archivedTeam(await fed.backend.registry.read(), name, seen);
    return await removeArchivedTeam(fed, entry, options);
  } finally {
    releaseLock(lock);
  }
}

/**
 * The team `name` names, refused unless it is archived (an archived team is never active again) and,
 * given `seen`, the very team seen before — not one removed meanwhile, nor another onboarded since under
 * its name.
 */
function archivedTeam(registry: Registry, name: string, seen?: RegistryEntry): RegistryEntry {
  const entry = seen ? findTeam(registry, name) : getTeam(registry, name);
  if (!entry || (seen && !isSameTeam(entry, seen))) throw changedMeanwhile(name, entry);
  const status = statusOf(entry);
  if (status !== 'archived') {
    throw new RefusedError(
      'TEAM_NOT_ARCHIVED',
      `team "${entry.domainId}" is ${status}; only archived teams are removed — archive it first: fed team archive ${entry.domainId}`,
    );
  }
  return entry;
}

/** The team seen at first is gone: removed by another process, and perhaps `now` onboarded in its name. */
function changedMeanwhile(name: string, now: RegistryEntry | undefined): RefusedError {
  return new RefusedError(
    'TEAM_CHANGED',
    now
      ? `team "${name}" was removed by another process and onboarded again (at ${now.onboardedAt}) while this one ran; nothing was removed — to remove the new team: fed team archive ${now.domainId}, then run this again`
      : `team "${name}" was removed by another process while this one ran; nothing is left to remove`,
  );
}

/**
 * The registry's entry changed after this removal had deleted the team's files here: another host sharing
 * the registry removed it too, or removed it and onboarded a team of that name. Said as it is — what was
 * deleted, and that the registry's entry was left to the other host.
 */
function changedWhileRemoving(name: string, now: RegistryEntry | undefined): RefusedError {
  const deleted = `this removal had already deleted the team's workspace here and its settings and schedules in federate.config.json`;
  return new RefusedError(
    'TEAM_CHANGED',
    now
      ? `team "${name}" was removed by another host and onboarded again (at ${now.onboardedAt}) while this one removed it: ${deleted}; the new team's registry entry was left as it is (check its settings: fed config show)`
      : `team "${name}" was removed by another host while this one removed it: ${deleted}; nothing is left to remove`,
  );
}

/** The removal itself, under the team domain's lock, of `entry` as the registry has it now. */
async function removeArchivedTeam(
  fed: Federation,
  entry: RegistryEntry,
  options: RemoveOptions,
): Promise<Extract<FederationRecord, { kind: 'removed' }>> {
  const { root } = fed;
  const expected = teamWorkspacePath(root, entry.domain, entry.placementType);
  // A federation folder moved or copied still registers the original's workspace: its own is this one's.
  const { location } = locatedHere(root, entry);
  const present = lstatExists(location);
  if (present) {
    // Never delete what fed did not create: a workspace outside the root, through a link, or moved.
    try {
      fed.workspace({ ...entry, location });
    } catch (error) {
      // Elsewhere than fed's workspace for the team: refused below with advice for an archived team (the
      // check's own advice, to archive it, is for an active one).
      if (!(error instanceof FedError) || !['WORKSPACE_OUTSIDE_ROOT', 'WORKSPACE_NOT_ITS_OWN'].includes(error.code))
        throw error;
    }
    if (location !== expected) {
      throw new RefusedError(
        'WORKSPACE_NOT_FEDS',
        `the workspace of team "${entry.domainId}" is ${location}, not where fed creates it (${expected}); fed removes only its own workspaces — if the registry was edited, restore the team's location to ${expected}; otherwise remove that folder by hand, then run this again`,
      );
    }
    if (isLockHeld(workspacePaths(location).launchLease, { staleMs: Number.POSITIVE_INFINITY })) {
      throw new RefusedError(
        'TEAM_BUSY',
        `team "${entry.domainId}" is still being launched by another process; wait for it to end, then run this again`,
      );
    }
  } else if (!fed.sharesTeamsAcrossMachines && location !== expected && lstatExists(expected)) {
    // The registry names a folder that is gone while fed's own workspace for the team is there: removing
    // only the entry would leave that workspace to be taken for a killed onboarding's.
    throw new RefusedError(
      'WORKSPACE_NOT_FEDS',
      `team "${entry.domainId}" is registered at ${location}, which does not exist, while ${expected} — where fed makes its workspace — does; fed removes only the workspace the registry names — if ${expected} is the team's, restore the team's location in the registry to it; otherwise move that folder away, then run this again`,
    );
  }
  const branch = entry.placementType === 'worktree' ? worktreeBranch(entry.domain) : undefined;
  if (
    branch &&
    !options.force &&
    branchExists(root, branch) &&
    !gitSucceeds(root, ['merge-base', '--is-ancestor', branch, 'HEAD'])
  ) {
    throw new RefusedError(
      'BRANCH_NOT_MERGED',
      `branch ${branch} of team "${entry.domainId}" has commits not merged into the current branch; merge them first (git merge ${branch}), or remove it with its commits: fed team remove ${entry.domainId} --force`,
    );
  }
  // Money spent stays spent: its runs are kept for the federation's budget and fed runs, before they go.
  if (present) keepRemovedRuns(root, entry.domainId, location);
  // Its agent settings and schedules go with it: a team onboarded later under the same id must not inherit
  // them, and a schedule to no team never fires. First: a config that cannot be written then refuses the
  // removal before the workspace is gone.
  const { agentSettingsCleared, schedulesRemoved } = await clearTeamConfig(root, entry.domainId);
  if (present || branch)
    await removeWorkspace(root, {
      location,
      placementType: entry.placementType,
      ...(branch ? { branch } : {}),
    });
  await updateRegistry(
    fed,
    (registry) => {
      // Checked again where the registry is written: another host sharing it (JetStream) takes no lock of
      // this one, and only the entry of the team checked above is dropped — never one of its name.
      const current = findTeam(registry, entry.domainId);
      if (!current || !isSameTeam(current, entry)) throw changedWhileRemoving(entry.domainId, current);
      registry.teams = registry.teams.filter((t) => t !== current);
      return registry;
    },
    options,
  );
  return (await recordFederationEvent(fed.backend, {
    kind: 'removed',
    team: entry.domainId,
    location,
    workspaceDeleted: present,
    agentSettingsCleared,
    ...(schedulesRemoved.length ? { schedulesRemoved } : {}),
    ...(branch ? { branch } : {}),
    forced: Boolean(options.force),
  })) as Extract<FederationRecord, { kind: 'removed' }>;
}

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Take the team's entry out of `agent.teams` in federate.config.json (what `fed team onboard --agent
 * --model --max-turns …` wrote there) and its schedules (what `fed schedule add --to <team>` wrote), as
 * those edits are made: under the config's lock, in one atomic write. The file is not written when it had
 * neither.
 */
async function clearTeamConfig(
  root: string,
  teamId: string,
): Promise<{ agentSettingsCleared: boolean; schedulesRemoved: string[] }> {
  const cleared = { agentSettingsCleared: false, schedulesRemoved: [] as string[] };
  await editConfigFile(root, (raw) => {
    cleared.agentSettingsCleared = clearAgentSettings(raw, teamId);
    cleared.schedulesRemoved = removeSchedulesTo(raw, teamId);
    return cleared.agentSettingsCleared || cleared.schedulesRemoved.length > 0;
  });
  return cleared;
}

function clearAgentSettings(raw: Record<string, unknown>, teamId: string): boolean {
  const agent = raw.agent;
  if (agent === null || typeof agent !== 'object' || Array.isArray(agent)) return false;
  const teams = (agent as Record<string, unknown>).teams;
  if (teams === null || typeof teams !== 'object' || Array.isArray(teams) || !Object.hasOwn(teams, teamId))
    return false;
  delete (teams as Record<string, unknown>)[teamId];
  // As fed schedule remove does with its last schedule: no empty objects left where it took the last one.
  if (Object.keys(teams).length === 0) delete (agent as Record<string, unknown>).teams;
  if (Object.keys(agent).length === 0) delete raw.agent;
  return true;
}

/** The ids of the schedules to the team, taken out of the config (`schedules` left out when it empties, as fed schedule remove does). */
function removeSchedulesTo(raw: Record<string, unknown>, teamId: string): string[] {
  if (!Array.isArray(raw.schedules)) return [];
  const schedules = raw.schedules as { id?: unknown; to?: unknown }[];
  const removed = schedules.filter((schedule) => schedule.to === teamId);
  if (removed.length === 0) return [];
  raw.schedules = schedules.filter((schedule) => schedule.to !== teamId);
  if ((raw.schedules as unknown[]).length === 0) delete raw.schedules;
  return removed.map((schedule) => String(schedule.id));
}
