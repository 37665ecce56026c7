import { findTeam } from '../../../core/find-team.js';
import { ANY_HOST } from '../../../core/schema/registry.js';
import type { Launch } from '../launch.js';

/**
 * Why this launch no longer holds its team, once the team went to another host while its agent ran here —
 * moved there (a failover that took this host for lost while it was stalled or cut off), or, unplaced, its
 * work taken there — so its agent is stopped rather than run beside the new host's; undefined while the
 * team is still this workspace's. Read from the launcher's watched registry: a look costs no request. On
 * one machine (files) a team never leaves.
 */
export async function teamLeftHere(launch: Launch): Promise<string | undefined> {
  const { fed, team } = launch;
  if (!fed.sharesTeamsAcrossMachines) return undefined;
  const { checked: now } = await fed.checkRegistry((registry) => findTeam(registry, team.domainId));
  if (!now || now.location === team.location) return undefined;
  const where = now.host === undefined || now.host === ANY_HOST ? 'another host' : `host ${now.host}`;
  return `team "${team.domainId}" went to ${where} while its agent ran here; it runs there from now on`;
}
