import type { LifecycleStore } from '../ports/lifecycle-store.js';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { loadTeamLifecycle, stateOf } from '../actors/team-lifecycle.js';
import { lifecycleFor } from '../../machines/catalog.js';
import { workspacePaths } from '../layout.js';
import { statusOf } from '../registry/find-team.js';
import type { FederationConfig } from '../schema/config.js';
import type { RegistryEntry } from '../schema/registry.js';
import { agentLogErrors } from './agent-log-errors.js';
import type { BoxCounts, TeamReport } from './monitor-report.js';

export interface HealthInputs {
  config: FederationConfig;
  now: Date;
  staleAfterMs: number;
  inbox: BoxCounts;
  outbox: BoxCounts;
  /** Where the team's lifecycle is kept. */
  lifecycles: LifecycleStore;
}

interface LifecycleContextView {
  mission?: { subject: string } | null;
  failure?: { reason: string } | null;
  enteredAt?: Record<string, string>;
}

/**
 * One team's line of the monitoring cycle, with the health checks of spec §6: the deliverable exists and
 * is not empty once the lifecycle is complete; a lifecycle that is working (not paused, not over) and has
 * a mission was updated within the stale limit; the agent logged no errors since its last launch. A team
 * whose files cannot be read is reported with the error — never dropped.
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
  try {
    if (lifecycleFor(team.archetypeId)) await fillLifecycle(report, team, inputs);
    const errors = agentLogErrors(workspacePaths(team.location).agentLog);
    if (errors.length) report.reasons.push(`errors in agent log since the last launch: ${errors.join(' | ')}`);
  } catch (error) {
    report.error = (error as Error).message;
    report.reasons.push(`cannot read the team's files: ${report.error}`);
  }
  report.healthy = report.reasons.length === 0;
  return report;
}

async function fillLifecycle(report: TeamReport, team: RegistryEntry, inputs: HealthInputs): Promise<void> {
  const lifecycle = await loadTeamLifecycle(team, inputs.lifecycles);
  const context = (lifecycle.snapshot.context ?? {}) as LifecycleContextView;
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

  const working = lifecycle.snapshot.status === 'active' && state !== 'paused' && report.status === 'active';
  const idleFor = inputs.now.getTime() - Date.parse(updatedAt);
  if (working && context.mission && idleFor > inputs.staleAfterMs) {
    report.reasons.push(`stale: no lifecycle update for ${Math.round(idleFor / 60_000)} min in ${state} (limit ${Math.round(inputs.staleAfterMs / 60_000)} min)`);
  }
  if (state === 'failed') report.reasons.push(`failed: ${context.failure?.reason ?? 'no reason recorded'}`);

  if (team.archetypeId === 'deliverable') {
    const path = join(team.location, inputs.config.deliverable);
    const size = statSync(path, { throwIfNoEntry: false })?.size;
    report.deliverable = { path, exists: size !== undefined, sizeBytes: size ?? 0 };
    if (state === 'complete' && !size) report.reasons.push(size === undefined ? `deliverable ${inputs.config.deliverable} is missing` : `deliverable ${inputs.config.deliverable} is empty`);
  }
}
