import { existsSync } from 'node:fs';
import { workspacePaths } from '../../../core/layout.js';
import type { LaunchRun } from '../../../core/schema/launch-run.js';
import { journalQuietly } from '../../../engine/federation/federation-journal.js';
import type { LaunchResult } from '../../../engine/hooks/federation-hooks.js';
import type { AccountLimit } from '../../../core/schema/account-limit.js';
import type { AccountPause } from '../judge/account-pause.js';
import type { LaunchDecision } from '../judge/launch-outcome.js';
import { pushWarning, type Launch } from '../launch.js';
import type { PreparedRun } from '../prepare/prepare-run.js';
import { recordRun, runFields, UNMEASURED_RUN } from '../run-records.js';
import type { AgentExit } from '../supervise/agent-process.js';
import type { EndedRun } from '../supervise/supervise-agent.js';

/** How a launch ended for the team: what `fed launch` reports beside the run. */
interface LaunchEnd {
  outcome: LaunchResult['outcome'];
  state: string;
  reason: string | null;
  next: string | null;
  /** The agent's exit, or null when no agent was started. */
  exit: AgentExit | null;
}

/** The run recorded (run journal, federation journal), the result told to the hooks and returned. */
export async function recordLaunch(
  launch: Launch,
  prepared: PreparedRun,
  ended: EndedRun,
  decision: LaunchDecision,
): Promise<LaunchResult> {
  const { run } = prepared;
  const { verdict, finalState, outcome } = decision;
  const { stats } = ended;
  const network = ended.network();
  const lastRun: LaunchRun = {
    ...runFields(ended.current),
    sessionId: stats.sessionId ?? run.command.sessionId,
    // A resumed session keeps its id even when a CLI does not repeat it.
    ...(stats.sessionId === null && run.command.sessionId === null && run.resumedSessionId
      ? { sessionId: run.resumedSessionId }
      : {}),
    outcome: verdict.outcome,
    reason: verdict.message,
    exitCode: ended.exit.code,
    signal: ended.exit.signal,
    turns: stats.turns,
    model: stats.model ?? launch.options.config.agent.model ?? null,
    inputTokens: stats.inputTokens,
    outputTokens: stats.outputTokens,
    cacheReadTokens: stats.cacheReadTokens,
    cacheWriteTokens: stats.cacheWriteTokens,
    costUsd: stats.costUsd,
    resumeAt: decision.resumeAt,
    fixAttempts: ended.fixAttempts,
    promptPath: run.promptPath,
    traceId: launch.watch.trace?.traceId ?? null,
    stateAfter: finalState,
    progressed: launch.watch.progressed,
    ...(network ? { network } : {}),
    endedAt: new Date().toISOString(),
  };
  return recordLaunchEnd(launch, prepared, lastRun, {
    outcome,
    state: finalState,
    reason: decision.reason,
    next: decision.next,
    exit: ended.exit,
  });
}

/**
 * The run of a launch paused for its account's rate limit (judge/account-pause.ts), which started no
 * agent: the session the last run left is still the one to resume.
 */
export async function recordAccountPause(
  launch: Launch,
  prepared: PreparedRun,
  limit: AccountLimit,
  paused: AccountPause,
): Promise<LaunchResult> {
  const { run } = prepared;
  const lastRun: LaunchRun = {
    runId: run.runId,
    preset: run.preset.name,
    command: run.recordedArgv,
    // The session the last run left is still the one to resume: this run started none.
    sessionId: run.resumedSessionId,
    resumedSessionId: run.resumedSessionId,
    outcome: 'rate-limited',
    reason: paused.message,
    ...UNMEASURED_RUN,
    model: launch.options.config.agent.model ?? null,
    resumeAt: limit.resumeAt,
    promptPath: null,
    stateBefore: prepared.stateBefore,
    stateAfter: paused.state,
    progressed: false,
    sandboxed: false,
    transcriptPath: run.transcriptPath,
    startedAt: paused.at,
    endedAt: new Date().toISOString(),
  };
  return recordLaunchEnd(launch, prepared, lastRun, {
    outcome: 'paused',
    state: paused.state,
    reason: paused.reason,
    next: null,
    exit: null,
  });
}

/**
 * The end of a launch, whether its agent ran or not: `launch-ended` in the federation journal, the run in
 * the team's run journal, its span ended, and the result told to the hooks and returned. Journaled
 * before the run is recorded: recording removes the run in progress, the intent a later command
 * finishes a killed launch from (prepare/finish-orphaned-run.ts), which journals it unless it is there.
 */
async function recordLaunchEnd(
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
