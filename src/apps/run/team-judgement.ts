import { lifecycleFor } from '../../engine/archetypes/catalog.js';
import { readFederationJournal } from '../../engine/federation/federation-journal.js';
import { loadTeamLifecycle } from '../../engine/actors/team-lifecycle.js';
import { firstAwaitingApply } from '../../engine/actors/awaiting-apply.js';
import type { TeamLifecycle } from '../../engine/actors/lifecycle-types.js';
import { stateOf } from '../../engine/actors/state-of.js';
import { statusOf } from '../../core/find-team.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { SignalMessage } from '../../core/schema/signal.js';
import type { LaunchRun } from '../../core/schema/launch-run.js';
import type { Federation } from '../../engine/context.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { finishOrphanedRun } from '../launch/prepare/finish-orphaned-run.js';
import { lastRunOf } from '../hosts/team-files.js';
import { pausesTeam, STOPPED_FOR_PAUSE } from '../launch/judge/run-outcome.js';
import { newMissionFor } from './team-retry.js';

/**
 * Whether a team has work a launch can do now — the judgement `fed run` makes of every team before it
 * starts and `fed serve` makes of a team each time something about it changes.
 */
export interface Candidate {
  team: RegistryEntry;
  /** Why it is not run; undefined when it is. */
  skip?: string;
  /** Skipped because its files cannot be read: something to repair (fed run exits 2), not a team at rest. */
  unreadable?: true;
  resume: boolean;
  /** A complete team that was sent a new mission: a new run of its lifecycle starts first. */
  newRun?: boolean;
  /** Paused by a rate limit: resumed once this time (ISO) has passed. */
  resumeAt?: string;
  /** Its lifecycle as it was judged (absent when it could not be read, or the team has none). */
  lifecycle?: TeamLifecycle;
  /** The oldest directive in its inbox that its lifecycle has not applied yet: work that has arrived. */
  waitingDirective?: SignalMessage;
  /** The new mission of a complete team (`newRun`). */
  newMission?: { subject: string };
}

/** Whether a team is run; a team whose files cannot be read is skipped with why, never stops the others. */
export async function judgeTeam(fed: Federation, team: RegistryEntry): Promise<Candidate> {
  try {
    // A completed run a dead launcher left is finished first (its report to meta, once).
    await finishOrphanedRun(fed, team);
    return await judgeReadable(fed, team);
  } catch (error) {
    return { team, skip: `its files cannot be read: ${(error as Error).message}`, unreadable: true, resume: false };
  }
}

/** Whether a team is run, from its registry status, lifecycle, mission and last run. */
async function judgeReadable(fed: Federation, team: RegistryEntry): Promise<Candidate> {
  const { backend } = fed;
  const status = statusOf(team);
  if (status === 'archived') return { team, skip: 'archived', resume: false };
  if (!lifecycleFor(team.archetypeId))
    return { team, skip: `archetype ${team.archetypeId} has no lifecycle`, resume: false };
  const lifecycle = await loadTeamLifecycle(team, backend.lifecycles);
  const state = stateOf(lifecycle.snapshot);
  const newMission = state === 'complete' ? await newMissionFor(backend, team, lifecycle) : undefined;
  if (newMission) return { team, resume: false, newRun: true, lifecycle, newMission };
  if (lifecycle.snapshot.status !== 'active')
    return {
      team,
      skip: `already ${state}${state === 'failed' ? ` (retry it: fed team retry ${team.domainId})` : ''}`,
      resume: false,
      lifecycle,
    };
  // A mission applied, or a directive waiting to be applied (the launch's consumer applies it first).
  const waitingDirective = await firstAwaitingApply(
    backend.signals.inbox({ id: team.domainId, entry: team }),
    lifecycle.envelope,
    ['directive'],
  );
  if (!lifecycle.snapshot.context.mission && !waitingDirective) {
    return {
      team,
      skip: `no mission (send one: fed signal send --to ${team.domainId} --type directive --subject "<mission>")`,
      resume: false,
      lifecycle,
    };
  }
  if (status === 'paused') {
    // An unplaced team's last run may be another host's: read where it was kept last (team-files.ts).
    const last = state === 'paused' ? await lastRunOf(fed, team) : null;
    if (last && (await pausedByLaunch(backend, team, last)))
      return {
        team,
        resume: true,
        resumeAt: last.resumeAt ?? undefined,
        lifecycle,
        waitingDirective,
      };
    return {
      team,
      skip: `paused by hand (resume it first: fed team resume ${team.domainId})`,
      resume: false,
      lifecycle,
    };
  }
  return { team, resume: false, lifecycle, waitingDirective };
}

/**
 * Whether the team is paused because its last launch paused it (Ctrl-C, a limit, a rate limit — its own
 * or its CLI account's, met before the agent started — a crash after progress) — a run picks such a
 * team up again, a rate-limited one once its `resumeAt` has passed — rather than by hand: a pause that
 * stopped the run, or a status change since it ended, is someone's decision, and is left alone.
 */
async function pausedByLaunch(backend: FederationBackend, team: RegistryEntry, last: LaunchRun): Promise<boolean> {
  if (last.stateAfter !== 'paused' || !pausesTeam(last.outcome, last.progressed) || last.reason === STOPPED_FOR_PAUSE)
    return false;
  return !(await readFederationJournal(backend)).some(
    (r) => r.team === team.domainId && r.kind === 'status' && Date.parse(r.at) > Date.parse(last.endedAt),
  );
}
