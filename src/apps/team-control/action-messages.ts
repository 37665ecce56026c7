import type { MergeResult } from '../../engine/archetypes/coding/merge.js';
import type { NewRun } from '../run/team-retry.js';

/**
 * What a person is told after deciding on a team, the same wherever they decided: `fed team …` prints
 * these lines, and the dashboard (`fed ui`) shows them after its button did the same operation.
 */
export function statusChangeMessage(change: { team: string; from: string; to: string }): string {
  return `${change.team}: ${change.from} → ${change.to}`;
}

/**
 * Said when a team is archived that schedules still send to: `fed serve` never sends them now, and `fed team
 * remove` takes them out with the team.
 */
export function archivedSchedulesWarning(team: string, scheduleIds: readonly string[]): string {
  return `the schedules ${scheduleIds.join(', ')} to ${team} are never sent now (archived teams receive no signals); fed team remove ${team} takes them out with the team — or now: ${scheduleIds.map((id) => `fed schedule remove ${id}`).join('; ')}`;
}

export function archivalMessage(archived: { team: string; from: string; to: string; undeliverable: string[] }): string {
  const returned = archived.undeliverable.length
    ? `\n${archived.undeliverable.length} signal(s) it had not acknowledged returned to their senders as non-delivery alerts`
    : '';
  return `${statusChangeMessage(archived)}${returned}`;
}

export function reviewDecisionMessage(decided: { team: string; state: string }, approved: boolean): string {
  return approved
    ? `${decided.team}: approved (${decided.state}); merge it with: fed team merge ${decided.team}`
    : `${decided.team}: changes requested (${decided.state}); launch it again: fed launch --team ${decided.team}`;
}

export function mergeMessage(merged: MergeResult): string {
  if (merged.alreadyMerged)
    return `${merged.team}: already merged ${merged.branch} into ${merged.base} as ${merged.commit}; nothing left to do (${merged.state})`;
  return `${merged.team}: merged ${merged.branch} into ${merged.base} as ${merged.commit}; worktree and branch removed, team archived (${merged.state})`;
}

export function retryMessage(run: NewRun): string {
  // A mission sent since the last run ended is named as such: it is not that run's, which a retry would suggest.
  const sent = run.missionSentSince ? ` (sent since run ${run.run - 1} ended)` : '';
  return `${run.team}: run ${run.run} starts from the beginning with the mission "${run.mission.subject}"${sent}; kept: ${run.keptAs.join(', ')}
launch it: fed run --team ${run.team}`;
}

export function removalMessage(removed: {
  team: string;
  location: string;
  workspaceDeleted?: boolean;
  agentSettingsCleared?: boolean;
  schedulesRemoved?: string[];
  branch?: string;
}): string {
  const branch = removed.branch ? ` and branch ${removed.branch}` : '';
  const settings =
    (removed.agentSettingsCleared
      ? `; its agent settings (agent.teams.${removed.team}) taken out of federate.config.json`
      : '') +
    (removed.schedulesRemoved?.length
      ? `; its schedules (${removed.schedulesRemoved.join(', ')}) taken out of federate.config.json`
      : '');
  return removed.workspaceDeleted === false
    ? `removed ${removed.team}: its registry entry${branch}; its workspace ${removed.location} was already gone${settings}`
    : `removed ${removed.team}: ${removed.location}${branch}${settings}`;
}
