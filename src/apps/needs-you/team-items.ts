import { loadTeamLifecycle } from '../../engine/actors/team-lifecycle.js';
import type { TeamLifecycle } from '../../engine/actors/lifecycle-types.js';
import { stateOf } from '../../engine/actors/state-of.js';
import { archetypeOf, lifecycleFor } from '../../engine/archetypes/catalog.js';
import { statusOf } from '../../core/find-team.js';
import type { NeedsYouItem } from '../../core/schema/needs-you.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { readLastRun } from '../launch/run-records.js';
import { retryMissionOf } from '../run/team-retry.js';
import { oneLine } from './signal-items.js';
import type { Federation } from '../../engine/context.js';

/**
 * The items of one team (needs-you.ts): a coding team waiting for meta's review or merge, a paused team
 * (why, and when it resumes by itself), a failed team (why). Each item's id names the team and when it
 * entered the state, so the next occurrence is a new item.
 */
function teamItem(
  kind: 'review' | 'paused' | 'failed',
  team: string,
  since: string,
  summary: string,
  action: string,
  resumeAt: string | null = null,
): NeedsYouItem {
  return {
    id: `${kind}:${team}:${since}`,
    kind,
    team,
    since,
    summary: oneLine(summary),
    action,
    signalId: null,
    resumeAt,
  };
}

/**
 * What one team waits on a person for: nothing, its review, its pause, or its failure. `loaded`: the
 * team's lifecycle when the caller read it already (it is then not read again).
 */
export async function teamNeedsYou(
  fed: Federation,
  team: RegistryEntry,
  loaded?: TeamLifecycle,
): Promise<NeedsYouItem[]> {
  const id = team.domainId;
  const status = statusOf(team);
  // A team without a lifecycle is never launched, so nothing of it waits on anyone.
  if (status === 'archived' || !lifecycleFor(team.archetypeId)) return [];
  const lifecycle = loaded ?? (await loadTeamLifecycle(team, fed.backend.lifecycles));
  const { snapshot } = lifecycle;
  const state = stateOf(snapshot);
  const since = snapshot.context.enteredAt?.[state] ?? (await enteredFromJournal(fed, team, state));
  if (state === 'failed') {
    const reason = snapshot.context.failure?.reason ?? 'no reason recorded';
    // A team that failed before it ever had a mission is retried once it is sent one (fed team retry: NO_MISSION).
    const retry = (await retryMissionOf(fed.backend, team, lifecycle).then(Boolean, () => true))
      ? `start it again: fed team retry ${id}`
      : `it never had a mission: send it one (fed signal send --to ${id} --type directive --subject "<mission>"), then fed team retry ${id}`;
    return [teamItem('failed', id, since, `${id} failed: ${reason}`, `see why: fed team show ${id}; ${retry}`)];
  }
  if (state === 'paused' || status === 'paused') return pausedByLaunch(team, since);
  const settled = archetypeOf(team).completion.settled(snapshot, team);
  if (settled?.outcome === 'waiting' && settled.forMeta)
    return [teamItem('review', id, since, `${id} waits for you in ${state}`, settled.next)];
  return [];
}

/**
 * A team its last launch paused — on a limit, a rate limit, a crash after progress — with why, and when it
 * resumes by itself. A team paused by a person (`fed team pause`, Ctrl-C) waits on that person's own
 * decision, which they know of: as the launch's alert to meta, it is not told.
 */
function pausedByLaunch(team: RegistryEntry, since: string): NeedsYouItem[] {
  const id = team.domainId;
  const run = readLastRun(team.location);
  // The last run is what paused the team only when it ended paused, at or after the pause.
  if (!run || run.stateAfter !== 'paused' || Date.parse(run.endedAt) < Date.parse(since)) return [];
  if (run.outcome === 'interrupted') return [];
  const { resumeAt, outcome, reason } = run;
  const why = reason === null ? outcome : reason.startsWith(outcome) ? reason : `${outcome}: ${reason}`;
  return [
    teamItem(
      'paused',
      id,
      since,
      `${id} is paused (${why})${resumeAt ? `; resumes at ${resumeAt}` : ''}`,
      resumeAt
        ? `fed run resumes it after ${resumeAt}; now: fed team resume ${id} && fed launch --team ${id}`
        : `fed team resume ${id} && fed launch --team ${id}`,
      resumeAt,
    ),
  ];
}

/**
 * When the team entered `state`, for a snapshot that has no entry time (written before events were
 * stamped): the journal line that entered it, else the onboarding. Never the envelope's last write, which
 * moves with every signal a team takes in that state and would make each a new item.
 */
async function enteredFromJournal(fed: Federation, team: RegistryEntry, state: string): Promise<string> {
  const lines = await fed.backend.lifecycles.journalTail(team, 100);
  return lines.findLast((line) => line.to === state && line.from !== state)?.at ?? team.onboardedAt;
}
