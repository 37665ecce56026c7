import type { LifecycleStore } from '../../ports/lifecycle-store.js';
import { statSync } from 'node:fs';
import { loadTeamLifecycle } from '../../engine/actors/team-lifecycle.js';
import type { TeamLifecycle } from '../../engine/actors/lifecycle-types.js';
import { stateOf } from '../../engine/actors/state-of.js';
import { archetypeOf, lifecycleFor } from '../../engine/archetypes/catalog.js';
import { joinPath, teamWorkspacePath, workspacePaths } from '../../core/layout.js';
import { isWorkspaceRefusal, teamWorkspace } from '../../adapters/index.js';
import type { Federation } from '../../engine/context.js';
import { processIsAlive } from '../../infra/fs/process-identity.js';
import { readCurrentRun, readLastRun } from '../launch/run-records.js';
import { statusOf } from '../../core/find-team.js';
import type { FederationConfig } from '../../core/schema/config.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { CurrentRun } from '../../core/schema/launch-run.js';
import { agentLogErrors } from './agent-log-errors.js';
import type { BoxCounts, TeamReport } from './monitor-report.js';

export interface HealthInputs {
  /** The federation's root, and whether its teams may work on other machines (the workspace check). */
  fed: Pick<Federation, 'root' | 'sharesTeamsAcrossMachines'>;
  config: FederationConfig;
  now: Date;
  staleAfterMs: number;
  inbox: BoxCounts;
  outbox: BoxCounts;
  /** Why the census could not count the team's boxes (PartyCensus.unreadable): the team is unhealthy. */
  unreadableBoxes?: string;
  /** Where the team's lifecycle is kept. */
  lifecycles: LifecycleStore;
  /** The team's lifecycle, when the caller loaded it already (it is then not read again). */
  lifecycle?: TeamLifecycle;
  /** Lifecycles an earlier cycle of this process loaded, by team: one is read again only when its stored version changed. */
  known?: Map<string, TeamLifecycle>;
  /** The team's run in progress, when the caller read it already (finishOrphanedRun): not read again. */
  run?: { current: CurrentRun | undefined };
}

/**
 * One team's line of the monitoring cycle, with the health checks of docs/design/spec.md §6: a lifecycle that is working
 * (not paused, not over, not waiting by its archetype's completion policy) and has a mission was updated
 * within the stale limit; its last launch completed (a run that left the team waiting by its archetype's policy counts); the agent logged no errors since its last launch; and its archetype's own
 * checks (a deliverable exists and is not empty once complete, a coding branch in review still exists, …).
 * A team whose files cannot be read is reported with the error — never dropped.
 */
export async function teamReport(team: RegistryEntry, inputs: HealthInputs): Promise<TeamReport> {
  const report: TeamReport = {
    team: team.domainId,
    domain: team.domain,
    archetype: team.archetypeId,
    status: statusOf(team),
    lifecycle: null,
    lastActive: team.lastActive ?? null,
    inbox: inputs.inbox,
    outbox: inputs.outbox,
    deliverable: null,
    healthy: true,
    reasons: [],
    error: null,
  };
  if (inputs.unreadableBoxes !== undefined) {
    report.error = inputs.unreadableBoxes;
    report.reasons.push(`cannot read the team's signal boxes: ${inputs.unreadableBoxes}`);
  }
  try {
    const stored = lifecycleFor(team.archetypeId) ? await fillLifecycle(report, team, inputs) : false;
    const unusable = workspaceProblem(team, inputs.fed, stored);
    if (unusable) report.reasons.push(unusable);
    // A launch that did not complete leaves the team unhealthy until one does (or it is retried and run);
    // while a new launch runs, that one is the last launch and has not ended yet.
    const current = inputs.run ? inputs.run.current : readCurrentRun(team.location);
    const launching = current !== undefined && processIsAlive(current.launcherPid);
    const lastRun = readLastRun(team.location);
    if (current && !launching)
      report.reasons.push(
        `launch ${current.runId} was not recorded: its launcher (pid ${current.launcherPid}) died; fed monitor finishes a run whose work was done, the next fed launch any other`,
      );
    else if (!launching && lastRun && lastRun.outcome !== 'completed')
      report.reasons.push(
        `last launch did not complete: ${lastRun.outcome}${lastRun.reason ? ` (${lastRun.reason})` : ''}, ended ${lastRun.endedAt}`,
      );
    const errors = agentLogErrors(workspacePaths(team.location).agentLog);
    if (errors.length) report.reasons.push(`errors in agent log since the last launch: ${errors.join(' | ')}`);
  } catch (error) {
    report.error = (error as Error).message;
    report.reasons.push(`cannot read the team's files: ${report.error}`);
  }
  report.healthy = report.reasons.length === 0;
  return report;
}

/**
 * Why the team's workspace cannot be used here, looked at only where the cycle's reads did not show it is
 * there: a team without a stored lifecycle (never applied — or its workspace is gone, which the census,
 * finding no boxes, counts as empty), or one the registry places elsewhere than the workspace fed made for
 * it. A team of a federation shared across machines that works in another working directory is fine.
 */
function workspaceProblem(team: RegistryEntry, fed: HealthInputs['fed'], stored: boolean): string | undefined {
  if (statusOf(team) === 'archived') return undefined;
  if (stored && team.location === teamWorkspacePath(fed.root, team.domain, team.placementType)) return undefined;
  try {
    // Checked afresh, not through the context's cache: a process that runs cycle after cycle (fed monitor
    // --watch, fed serve, the dashboard) must see a workspace deleted since its first look.
    teamWorkspace(fed.root, team, { sharedAcrossMachines: fed.sharesTeamsAcrossMachines });
    return undefined;
  } catch (error) {
    if (isWorkspaceRefusal(error)) return error.message;
    if ((error as { code?: string }).code === 'TEAM_ELSEWHERE') return undefined;
    throw error;
  }
}

/** Fills the report's lifecycle and its checks; whether the lifecycle is stored (false: never applied, as onboarded). */
async function fillLifecycle(report: TeamReport, team: RegistryEntry, inputs: HealthInputs): Promise<boolean> {
  const lifecycle =
    inputs.lifecycle ?? (await loadTeamLifecycle(team, inputs.lifecycles, inputs.known?.get(team.domainId)));
  inputs.known?.set(team.domainId, lifecycle);
  const { context } = lifecycle.snapshot;
  const state = stateOf(lifecycle.snapshot);
  const since = context.enteredAt?.[state] ?? null;
  const updatedAt = lifecycle.envelope.savedAt;
  report.lifecycle = {
    machine: lifecycle.entry.id,
    state,
    since,
    inStateMs: since ? inputs.now.getTime() - Date.parse(since) : null,
    updatedAt,
    mission: context.mission?.subject ?? null,
    failure: context.failure?.reason ?? null,
  };

  const archetype = archetypeOf(team);
  // A team that waits by design (for meta's review, for the next question) is not stale.
  const waiting = archetype.completion.settled(lifecycle.snapshot, team) !== undefined;
  const working =
    lifecycle.snapshot.status === 'active' && state !== 'paused' && !waiting && report.status === 'active';
  const idleFor = inputs.now.getTime() - Date.parse(updatedAt);
  if (working && context.mission && idleFor > inputs.staleAfterMs) {
    report.reasons.push(
      `stale: no lifecycle update for ${Math.round(idleFor / 60_000)} min in ${state} (limit ${Math.round(inputs.staleAfterMs / 60_000)} min)`,
    );
  }
  if (state === 'failed') report.reasons.push(`failed: ${context.failure?.reason ?? 'no reason recorded'}`);

  if (archetype.producesDocument) {
    const path = joinPath(team.location, inputs.config.deliverable);
    const size = statSync(path, { throwIfNoEntry: false })?.size;
    report.deliverable = { path, exists: size !== undefined, sizeBytes: size ?? 0 };
  }
  report.reasons.push(
    ...archetype.healthProblems({ team, snapshot: lifecycle.snapshot, state, config: inputs.config }),
  );
  return lifecycle.stored;
}
