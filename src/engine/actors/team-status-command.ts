import { existsSync } from 'node:fs';
import type { TeamStatusEvent } from '../../../machines/team-status.machine.js';
import { RefusedError } from '../../core/errors.js';
import { workspacePaths } from '../../core/layout.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { lifecycleFor } from '../archetypes/catalog.js';
import { recordFederationEvent } from '../federation/federation-journal.js';
import { getTeam, statusOf } from '../../core/find-team.js';
import { writeRegistryStatus, nextTeamStatus, type StatusChange } from '../registry/team-status.js';
import { isWorkspaceRefusal } from '../../adapters/index.js';
import type { UpdateOptions } from '../registry/update-registry.js';
import { applyLifecycleInputs, withStateLock } from './team-lifecycle.js';
import type { ApplyOptions } from './lifecycle-types.js';
import type { Federation } from '../context.js';
import { tryAcquireTeamLease } from './team-lease.js';

/**
 * `fed team pause|resume|archive`: the registry status and, for teams with a lifecycle machine, the
 * lifecycle too, so the two never contradict each other. PAUSE/RESUME go to the lifecycle first (it is
 * the truth: its write also brings the registry along); a lifecycle that is already over does not stop
 * the registry change. ARCHIVE concerns only the registry.
 */
export async function setTeamStatus(
  fed: Federation,
  team: string,
  event: TeamStatusEvent,
  options: UpdateOptions & ApplyOptions = {},
): Promise<StatusChange> {
  const change = await changeTeamStatus(fed, team, event, options);
  await recordFederationEvent(fed.backend, {
    kind: 'status',
    team: change.team.domainId,
    from: change.from,
    to: change.to,
  });
  return change;
}

async function changeTeamStatus(
  fed: Federation,
  team: string,
  event: TeamStatusEvent,
  options: UpdateOptions & ApplyOptions,
): Promise<StatusChange> {
  // No workspace check here: archive (and a status change of a team without a lifecycle) only touches
  // the registry — archiving is how a team whose workspace is gone or refused is retired. The lifecycle
  // write checks the workspace itself.
  const { backend } = fed;
  const entry = getTeam(await backend.registry.read(), team);
  const from = statusOf(entry);
  // Refuse an illegal move before touching anything.
  const to = nextTeamStatus(entry.domainId, from, event);
  if (event.type !== 'ARCHIVE' && lifecycleFor(entry.archetypeId)) {
    const result = await applyLifecycleInputs(
      fed,
      entry,
      [{ source: 'registry', event: { type: event.type } }],
      options,
    );
    // Only the process whose event the lifecycle applied made this change. When several run the same
    // command at once, the others find it already made (their event ignored) and fall through to the
    // registry change, which refuses it against the current status: one "active → paused", never several.
    if (result.steps.some((step) => step.outcome === 'applied')) {
      // A resume that released a held `pause` (acknowledged while paused) ends paused again: the lifecycle
      // is the truth, and the registry follows it.
      const reached = result.state === 'paused' ? 'paused' : to;
      const now = getTeam(await backend.registry.read(), entry.domainId);
      if (statusOf(now) === reached) return { team: now, from, to: reached };
    } else if (result.registryStatusSynced === to) {
      // The lifecycle was there already and the registry was not: a command like this one was stopped
      // between its lifecycle write and the registry's, and this apply brought the registry along — so
      // this run is the one that completes that change.
      return { team: getTeam(await backend.registry.read(), entry.domainId), from, to };
    }
  }
  // Archiving under the state lock: a consumer applying a signal right now finishes first, and any later
  // one sees the team archived (applyLifecycleInputs re-reads the status under the same lock). A workspace
  // the backend refuses to take that lock in (file-signal-v1: outside the root, a link) is archived without
  // it: no consumer runs there, and archiving is how such a team is retired.
  if (event.type === 'ARCHIVE' && lifecycleFor(entry.archetypeId)) {
    try {
      return await withStateLock(fed, entry, options, () =>
        whileNotLaunched(entry, () => writeRegistryStatus(fed, entry.domainId, event, options)),
      );
    } catch (error) {
      if (!isWorkspaceRefusal(error)) throw error;
    }
  }
  return writeRegistryStatus(fed, entry.domainId, event, options);
}

/**
 * Archiving a team whose agent runs would strand its run: the launcher could then neither apply its end
 * to the lifecycle nor record it. So it is refused while a launch holds the team's lease, and the lease is
 * held while archiving, so no launch starts meanwhile (a launch checks the status again once it holds it).
 * Pausing first stops the agent, and its run is recorded. A workspace with no state folder here (a team
 * another machine runs, whose lifecycle section is the broker's) has no launch here: nothing is made in it.
 */
async function whileNotLaunched<T>(entry: RegistryEntry, archive: () => Promise<T>): Promise<T> {
  if (!existsSync(workspacePaths(entry.location).state)) return archive();
  const lease = await tryAcquireTeamLease(entry, 'launch');
  if (!lease)
    throw new RefusedError(
      'TEAM_BUSY',
      `team "${entry.domainId}" has an agent running (fed launch holds it); archived now, its run could be neither applied nor recorded — pause it first (fed team pause ${entry.domainId}: the agent stops and its run is recorded), then archive it`,
    );
  try {
    return await archive();
  } finally {
    lease.release();
  }
}
