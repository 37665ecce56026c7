import { lstatSync } from 'node:fs';
import { stateOf } from '../../../engine/actors/state-of.js';
import { completionReportId } from '../../../engine/actors/report-signal-id.js';
import { tryAcquireTeamLease } from '../../../engine/actors/team-lease.js';
import { loadTeamLifecycle } from '../../../engine/actors/team-lifecycle.js';
import { archetypeOf } from '../../../engine/archetypes/catalog.js';
import { readBaseline } from '../../../engine/deliverable/codebase-baseline.js';
import { codebaseChanges, recaptureCodebase } from '../../../engine/deliverable/codebase-guard.js';
import { readFederationJournal, recordFederationEvent } from '../../../engine/federation/federation-journal.js';
import { sendSignal } from '../../../engine/messaging/send-signal.js';
import { unlinkQuietly } from '../../../infra/fs/atomic-write.js';
import { processIsAlive } from '../../../infra/fs/process-identity.js';
import { statusOf } from '../../../core/find-team.js';
import { workspacePaths } from '../../../core/layout.js';
import { META } from '../../../core/schema/common.js';
import type { CurrentRun, LaunchRun, RunOutcome } from '../../../core/schema/launch-run.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import type { Federation } from '../../../engine/context.js';
import { launchContext } from './launch-context.js';
import { appendRun, clearCurrentRun, readCurrentRun, readLastRun, runFields, UNMEASURED_RUN } from '../run-records.js';

/**
 * The run journal's line for a run its launcher did not record: what the run in progress says, and how it
 * ended — when, as near as the files tell (lastSignOfLife), unless the caller stopped its agent just now.
 */
export function orphanRunRecord(
  orphan: CurrentRun,
  workspace: string,
  ended: { outcome: RunOutcome; reason: string; stateAfter: string; at?: string },
): LaunchRun {
  const { outcome, reason, stateAfter } = ended;
  return {
    ...runFields(orphan),
    outcome,
    reason,
    ...UNMEASURED_RUN,
    model: null,
    resumeAt: null,
    promptPath: orphan.promptPath,
    stateAfter,
    progressed: stateAfter !== orphan.stateBefore,
    endedAt: ended.at ?? lastSignOfLife(orphan, workspace),
  };
}

/**
 * When a run whose launcher died (killed with -9, its machine lost) ended, as near as can be told later:
 * the last write to its transcript or the agent log, never before it started nor after now — not the
 * time a later command found it, which could be days on and made `fed runs` show days of work.
 */
function lastSignOfLife(orphan: CurrentRun, workspace: string): string {
  const written = [orphan.transcriptPath, workspacePaths(workspace).agentLog].map(
    (file) => lstatSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0,
  );
  return new Date(Math.min(Date.now(), Math.max(Date.parse(orphan.startedAt), ...written))).toISOString();
}

/**
 * Finish what a launch owed when its launcher died after the agent's work was done: the lifecycle is
 * settled by its archetype's completion policy (complete, or waiting for meta) and the codebase is as it
 * was at launch. The run in progress (`.fed/launch/agent.json`, written before the agent started) is the
 * durable intent, and it is removed last; each step before is done once however often this is re-run: the
 * completion report to meta (its id derived from the run, so one the launcher sent already is not sent
 * again), the federation journal's `launch-ended` record (unless it has the run's), and the run in the run
 * journal as completed (unless it is there). Returns false, changing nothing, when the run did not complete
 * its work: the next launch records it as interrupted. Throws when a step fails; a re-run retries it.
 */
export async function finishCompletedRun(fed: Federation, team: RegistryEntry, orphan: CurrentRun): Promise<boolean> {
  const lifecycle = await loadTeamLifecycle(team, fed.backend.lifecycles);
  const archetype = archetypeOf(team);
  const settled = archetype.completion.settled(lifecycle.snapshot, team);
  const { mission } = lifecycle.snapshot.context;
  if (!settled || !mission) return false;
  const baseline = readBaseline(team.location);
  if (baseline && codebaseChanges(baseline, await recaptureCodebase(baseline)).length > 0) return false;

  const stateAfter = stateOf(lifecycle.snapshot);
  if (settled.outcome === 'complete') {
    const context = launchContext(team, { root: fed.root, config: fed.config, state: orphan.stateBefore, mission });
    await sendSignal(fed, {
      from: team.domainId,
      to: META,
      type: 'report',
      ...(await archetype.completion.completionReport(context, lifecycle.snapshot)),
      id: completionReportId(team, orphan.runId),
    });
  }
  const reason = `its launcher (pid ${orphan.launcherPid}) died after the agent's work was done; a later fed command recorded the run`;
  const journal = await readFederationJournal(fed.backend);
  if (!journal.some((r) => r.kind === 'launch-ended' && r.team === team.domainId && r.runId === orphan.runId))
    await recordFederationEvent(fed.backend, {
      kind: 'launch-ended',
      team: team.domainId,
      runId: orphan.runId,
      result: settled.outcome,
      outcome: 'completed',
      stateAfter,
      reason,
    });
  if (readLastRun(team.location)?.runId !== orphan.runId)
    appendRun(fed, team, orphanRunRecord(orphan, team.location, { outcome: 'completed', reason, stateAfter }));
  clearCurrentRun(fed, team);
  unlinkQuietly(workspacePaths(team.location).launchBaseline);
  return true;
}

/**
 * For `fed monitor` and `fed run`: finish the completed run a dead launcher left (finishCompletedRun),
 * when no launch runs for the team (its launch lease is free) and the agent is gone (its watchdog stops
 * it when the launcher dies). A run whose work is not done is left to the next `fed launch`. Returns the
 * run still in progress afterwards (read once here, so the monitor need not read it again).
 */
export async function finishOrphanedRun(fed: Federation, team: RegistryEntry): Promise<CurrentRun | undefined> {
  const orphan = readCurrentRun(team.location);
  if (
    !orphan ||
    statusOf(team) === 'archived' ||
    processIsAlive(orphan.launcherPid) ||
    processIsAlive(orphan.pid, orphan.processStart ?? undefined)
  )
    return orphan;
  const lease = await tryAcquireTeamLease(team, 'launch');
  if (!lease) return orphan;
  try {
    // Read again under the lease: a launch may have recorded it (and started another) meanwhile.
    const current = readCurrentRun(team.location);
    if (current?.runId === orphan.runId && (await finishCompletedRun(fed, team, current))) return undefined;
    return current;
  } finally {
    lease.release();
  }
}
