import { existsSync } from 'node:fs';
import { workspacePaths } from '../../../core/layout.js';
import type { LaunchRun } from '../../../core/schema/launch-run.js';
import { journalQuietly } from '../../../engine/federation/federation-journal.js';
import type { LaunchResult } from '../../../engine/hooks/federation-hooks.js';
import type { AgentExit } from '../supervise/agent-process.js';
import type { Launch, PreparedRun } from '../launch-state.js';
import { recordRun } from '../run-records.js';

/** How a launch ended for the team: what `fed launch` reports beside the run. */
export interface LaunchEnd {
  outcome: LaunchResult['outcome'];
  state: string;
  reason: string | null;
  next: string | null;
  /** The agent's exit, or null when no agent was started. */
  exit: AgentExit | null;
}

/**
 * The end of a launch, whether its agent ran or not: `launch-ended` in the federation journal, the run in
 * the team's run journal, its span ended, and the result told to the hooks and returned. Journaled
 * before the run is recorded: recording removes the run in progress, the intent a later command
 * finishes a killed launch from (finish-orphaned-run.ts), which journals it unless it is there.
 */
export async function recordLaunchEnd(
  launch: Launch,
  prepared: PreparedRun,
  lastRun: LaunchRun,
  end: LaunchEnd,
): Promise<LaunchResult> {
  const { team, warnings } = launch;
  const { context } = prepared;
  pushWarning(
    warnings,
    await journalQuietly(launch.backend, {
      kind: 'launch-ended',
      team: team.domainId,
      runId: lastRun.runId,
      result: end.outcome,
      outcome: lastRun.outcome,
      stateAfter: end.state,
      reason: end.reason,
    }),
  );
  recordRun(launch.fed, team, lastRun);
  launch.watch.trace?.end(lastRun);
  const result: LaunchResult = {
    team: team.domainId,
    state: end.state,
    outcome: end.outcome,
    agentExitCode: end.exit?.code ?? null,
    agentSignal: end.exit?.signal ?? null,
    reason: end.reason,
    next: end.next,
    deliverablePath: context.deliverablePath,
    deliverableExists: existsSync(context.deliverablePath),
    logPath: workspacePaths(team.location).agentLog,
    durationMs: Date.now() - launch.started,
    lastRun,
    warnings,
  };
  pushWarning(warnings, await launch.options.hooks?.notify('onLaunchComplete', result));
  return result;
}

export function pushWarning(warnings: string[], warning: string | undefined): void {
  if (warning) warnings.push(warning);
}
