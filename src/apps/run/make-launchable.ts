import { RefusedError } from '../../core/errors.js';
import type { FederationConfig } from '../../core/schema/config.js';
import type { Federation } from '../../engine/context.js';
import { setTeamStatus } from '../../engine/actors/team-status-command.js';
import { judgeTeam } from './team-judgement.js';
import { startRunForNewMission, type NewRun } from './team-retry.js';

/**
 * What `fed run` and `fed serve` do to a team they judged runnable before its agent starts — the new run
 * a new mission asks for, the resume of a team its last launch paused — given to `launchTeam` as
 * `whenLeased`, so only the launcher holding the team's launch lease does it. The team is judged again
 * there: another launcher (a second `fed run`) may have run it since this one judged it. One that is no
 * longer runnable is refused, as a held lease is — nothing of it changed.
 */
export async function makeLaunchable(
  fed: Federation,
  name: string,
  config: FederationConfig,
): Promise<{ newRun?: NewRun; resumed: boolean }> {
  const now = await judgeTeam(fed, await fed.team(name));
  if (now.skip)
    throw new RefusedError(
      'TEAM_NOT_RUNNABLE',
      `team "${name}" is not run: ${now.skip} — it changed since this launcher judged it (another process ran it, or a person changed it)`,
    );
  const newRun = now.newRun ? await startRunForNewMission(fed, now.team, config) : undefined;
  if (now.resume) await setTeamStatus(fed, now.team.domainId, { type: 'RESUME' });
  return { newRun, resumed: now.resume };
}
