import { statusOf } from '../../../core/find-team.js';
import { loadTeamLifecycle } from '../../../engine/actors/team-lifecycle.js';
import { stateOf } from '../../../engine/actors/state-of.js';
import { lifecycleFor } from '../../../engine/archetypes/catalog.js';
import type { NeedsYouItem } from '../../../core/schema/needs-you.js';
import type { RegistryEntry, TeamStatus } from '../../../core/schema/registry.js';
import type { Federation } from '../../../engine/context.js';
import type { PartyCensus } from '../../../ports/signal-transport.js';
import { teamNetworkPolicy } from '../../launch/prepare/sandbox/host-policy.js';
import { networkSummary } from '../../launch/supervise/network/network-log.js';
import { readCurrentRun, readLastRun } from '../../launch/run-records.js';
import { teamReport } from '../../monitor/team-health.js';
import { DEFAULT_STALE_AFTER_MINUTES } from '../../monitor/monitor-cycle.js';
import { teamNeedsYou } from '../../needs-you/team-items.js';
import { retryMissionOf } from '../../run/team-retry.js';
import { teamRunTotals } from '../../runs/journal-totals.js';
import type { TeamCard, UiAction } from '../api-types.js';

const STALE_AFTER_MS = DEFAULT_STALE_AFTER_MINUTES * 60_000;

/** One team's card and what of it waits on a person: computed together, cached together (ui-views.ts). */
export interface TeamFacts {
  card: TeamCard;
  needsYou: NeedsYouItem[];
  /**
   * What the clock alone may change of them, with no change to tell (ui-views.ts reads the team again on
   * its clock only then): `watch` while a launch runs — its launcher may die, its agent log gain errors —
   * and `at`, the moment its lifecycle, not updated since, would count as stale, or a paused run's resume
   * comes due. Neither: the facts stand until a change says otherwise.
   */
  clock: { watch: boolean; at: number | null };
  /** Whether a retry would start a new run: false for a failed team that never had a mission to start it with. */
  retryable: boolean;
}

/**
 * A team as the board shows it, from the monitor's read-only health check of one team (team-health.ts —
 * never a monitoring cycle, which alerts and finishes runs), its runs and its needs-you items.
 */
export async function teamFacts(fed: Federation, entry: RegistryEntry, census: PartyCensus): Promise<TeamFacts> {
  const now = fed.now();
  // Read once for both the health check and the queue; one that cannot be read is reported by the check.
  const lifecycle = lifecycleFor(entry.archetypeId)
    ? await loadTeamLifecycle(entry, fed.backend.lifecycles).catch(() => undefined)
    : undefined;
  // Read once for the health check and the clock (a launch running is watched).
  const current = readCurrentRun(entry.location);
  const report = await teamReport(entry, {
    fed,
    lifecycle,
    run: { current },
    config: fed.config,
    now,
    staleAfterMs: STALE_AFTER_MS,
    inbox: census.inbox,
    outbox: census.outbox,
    unreadableBoxes: census.unreadable,
    lifecycles: fed.backend.lifecycles,
  });
  const needsYou = await teamNeedsYou(fed, entry, lifecycle).catch(() => []);
  const lastRun = readLastRun(entry.location);
  const ahead = [
    report.lifecycle ? Date.parse(report.lifecycle.updatedAt) + STALE_AFTER_MS : NaN,
    lastRun?.resumeAt ? Date.parse(lastRun.resumeAt) : NaN,
  ].filter((at) => at > now.getTime());
  const clock = {
    watch: current !== undefined,
    at: ahead.length ? Math.min(...ahead) : null,
  };
  // A failed team that never had a mission has none to start again with (fed team retry: NO_MISSION). An
  // inbox that cannot be read leaves Retry offered: the retry then says what is wrong.
  const retryable =
    lifecycle && stateOf(lifecycle.snapshot) === 'failed'
      ? await retryMissionOf(fed.backend, entry, lifecycle).then(Boolean, () => true)
      : true;
  const totals = teamRunTotals(fed, entry);
  const status = statusOf(entry);
  const card: TeamCard = {
    id: entry.domainId,
    domain: entry.domain,
    archetype: entry.archetypeId,
    status,
    state: report.lifecycle?.state ?? null,
    since: report.lifecycle?.since ?? null,
    mission: report.lifecycle?.mission ?? null,
    lastRun: lastRun
      ? {
          runId: lastRun.runId,
          outcome: lastRun.outcome,
          endedAt: lastRun.endedAt,
          resumeAt: lastRun.resumeAt,
          network: lastRun.network ? networkSummary(lastRun.network) : null,
        }
      : null,
    networkOpen: teamNetworkPolicy(fed.config.agent, entry.domainId) === 'open',
    costUsd: totals.costUsd,
    healthy: report.healthy,
    reasons: report.reasons,
    inbox: { total: census.inbox.total, unacknowledged: census.inbox.unacknowledged },
    actions: [],
  };
  card.actions = unique([
    ...STATUS_ACTIONS[status],
    ...needsYou.flatMap((item) => itemActions(item, { status, state: card.state, retryable })),
  ]);
  return { card, needsYou, clock, retryable };
}

/**
 * What a team's registry status alone lets a person do: pause an active team, resume a paused one, and
 * remove an archived one (`fed team remove` takes only those).
 */
const STATUS_ACTIONS: Record<TeamStatus, UiAction[]> = { active: ['pause'], paused: ['resume'], archived: ['remove'] };

/**
 * The actions that resolve an item, each a CLI command, offered only where that command takes the team as
 * it is (the button would otherwise always be refused): a review is approved or sent back (`pr-review`),
 * and once approved merged — or reviewed again, as `fed team merge` advises when the branch moved since
 * (`pr-approved`); a team its launch paused is resumed (`fed team retry` takes only an active failed
 * team); a failed one retried while active and it has a mission to start again with (`retryable`) —
 * resumed first when paused — or archived, the step before `fed team remove`; a question answered while
 * its asker is still there to take the answer (`team`: the asker then, undefined when it is gone from the
 * registry).
 */
export function itemActions(
  item: NeedsYouItem,
  team: { status: TeamStatus; state: string | null; retryable?: boolean } | undefined,
): UiAction[] {
  switch (item.kind) {
    case 'review':
      return team?.state === 'pr-approved' ? ['merge', 'approve', 'request-changes'] : ['approve', 'request-changes'];
    case 'paused':
      return ['resume'];
    case 'failed':
      if (team?.status === 'paused') return ['resume', 'archive'];
      return team?.retryable === false ? ['archive'] : ['retry', 'archive'];
    case 'question':
      return team && team.status !== 'archived' ? ['answer'] : [];
    case 'escalation':
    case 'host-lost':
      return [];
  }
}

function unique(actions: UiAction[]): UiAction[] {
  return [...new Set(actions)];
}
