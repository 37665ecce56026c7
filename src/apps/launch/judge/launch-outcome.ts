import { statSync } from 'node:fs';
import { applyLifecycleInputs } from '../../../engine/actors/team-lifecycle.js';
import type { TeamLifecycle } from '../../../engine/actors/lifecycle-types.js';
import { stateOf } from '../../../engine/actors/state-of.js';
import { completionReportId } from '../../../engine/actors/report-signal-id.js';
import { setTeamStatus } from '../../../engine/actors/team-status-command.js';
import {
  codebaseChanges,
  describeCodebaseChanges,
  recaptureCodebase,
} from '../../../engine/deliverable/codebase-guard.js';
import type { LaunchResult } from '../../../engine/hooks/federation-hooks.js';
import { sendSignal } from '../../../engine/messaging/send-signal.js';
import { unlinkQuietly } from '../../../infra/fs/atomic-write.js';
import { workspacePaths } from '../../../core/layout.js';
import { META } from '../../../core/schema/common.js';
import type { RunOutcome } from '../../../core/schema/launch-run.js';
import type { Launch } from '../launch.js';
import type { PreparedRun } from '../prepare/prepare-run.js';
import type { StreamVerdict } from '../presets/agent-preset.js';
import { scheduleResume } from './rate-limit-resume.js';
import { lastLaunchStderr } from './agent-log-tail.js';
import { pausesTeam, runOutcome } from './run-outcome.js';
import type { LaunchWatch } from '../launch-watch.js';
import type { EndedRun } from '../supervise/supervise-agent.js';

export interface LaunchDecision {
  outcome: LaunchResult['outcome'];
  /** The run's honest outcome (stream, exit code, stop reason, lifecycle). */
  verdict: StreamVerdict;
  /** The lifecycle state the launch ends in. */
  finalState: string;
  reason: string | null;
  next: string | null;
  /** When a rate-limited team may resume (ISO): `fed run` resumes it then. */
  resumeAt: string | null;
}

/**
 * What the ended run means for the team, and who is told: its work complete (report to meta), waiting for
 * meta or questions, paused (asked for, or worth relaunching: the team is paused and meta alerted), or
 * failed (the lifecycle fails with the reason, and meta is alerted). A codebase a read-only team modified
 * is never complete. A run stopped because the launch no longer held the team (fenced) leaves it as it is.
 */
export async function decideOutcome(launch: Launch, prepared: PreparedRun, ended: EndedRun): Promise<LaunchDecision> {
  const { team, archetype, watch } = launch;
  const { context, baseline, sandbox } = prepared;
  const { lifecycle, refusal } = ended;
  // Whether the run ended well is the archetype's call: its work complete, or waiting for meta or questions.
  const settled = archetype.completion.settled(lifecycle.snapshot, team);
  const verdict = runOutcome({
    preset: prepared.run.preset,
    stats: ended.stats,
    exit: ended.exit,
    stop: ended.stop,
    finished: settled !== undefined,
    progressed: watch.progressed,
    failure: lifecycleFailure(lifecycle, watch, refusal?.reason),
    refused: lifecycle.snapshot.status === 'active' ? refusal?.reason : undefined,
    stderr: lastLaunchStderr(workspacePaths(team.location).agentLog),
    spoke: ended.spoke,
  });
  const changes = baseline ? codebaseChanges(baseline, await recaptureCodebase(baseline)) : [];
  if (
    sandbox &&
    team.placementType === 'worktree' &&
    statSync(context.deliverablePath, { throwIfNoEntry: false })?.size === 0
  )
    unlinkQuietly(context.deliverablePath);
  const decided = { verdict, finalState: stateOf(lifecycle.snapshot), reason: null, next: null, resumeAt: null };

  if (settled?.outcome === 'complete' && changes.length === 0) {
    // With the id a command finishing this run after a crash would send it with: meta gets it once.
    await sendSignal(launch.fed, {
      from: team.domainId,
      to: META,
      type: 'report',
      ...(await archetype.completion.completionReport(context, lifecycle.snapshot)),
      id: completionReportId(team, prepared.run.runId),
    });
    return { ...decided, outcome: 'complete' };
  }
  if (settled?.outcome === 'waiting' && changes.length === 0) {
    // The agent's part is done for now: meta's turn (a review, a merge), or the next question's.
    return { ...decided, outcome: 'waiting', next: settled.next };
  }
  if (ended.stop?.kind === 'fenced') {
    // This launch may no longer hold the team (its host fenced, or the team moved on): it is left as it is,
    // for whichever host runs it next — a pause or a failure written from here would stop that host's agent,
    // and a pause no launch of its own made is never resumed by itself.
    return { ...decided, outcome: 'paused', reason: verdict.message };
  }
  if (decided.finalState === 'paused' || (ended.stop?.kind === 'paused' && lifecycle.snapshot.status === 'active')) {
    // Stopped because the team was paused: if it was resumed while the agent was stopping, it is simply
    // ready to be launched again — never failed for an exit fed asked for. Why it stopped is said (a
    // person's pause, Ctrl-C): a launcher of many tells a person's pause from a failure by it.
    return { ...decided, outcome: 'paused', reason: verdict.message };
  }
  if (lifecycle.snapshot.status === 'active' && changes.length === 0 && pausesTeam(verdict.outcome, watch.progressed)) {
    return { ...decided, ...(await pauseForRelaunch(launch, prepared, ended, verdict)) };
  }
  return { ...decided, ...(await failTeam(launch, lifecycle, verdict, changes)) };
}

/** Outcomes the team's work is not at fault for, but the agent's setup is: fixed by the operator, not by relaunching. */
const SETUP_OUTCOMES: readonly RunOutcome[] = ['auth', 'refused'];

/** Who failed the lifecycle while the agent ran: fed, refusing its completion (`rejected`), or the agent itself (`failed`). */
function lifecycleFailure(
  lifecycle: TeamLifecycle,
  watch: LaunchWatch,
  refused: string | undefined,
): StreamVerdict | undefined {
  if (stateOf(lifecycle.snapshot) !== 'failed') return undefined;
  const reason = lifecycle.snapshot.context.failure?.reason ?? null;
  if (refused !== undefined && reason === refused) return { outcome: 'rejected', message: reason };
  return watch.agentFailed ? { outcome: 'failed', message: reason } : undefined;
}

/**
 * Worth relaunching (the session is resumed): the team is paused with the reason, and meta is told. A
 * rate-limited team gets the time it may resume (`fed run` resumes it then), kept for its CLI account too.
 */
async function pauseForRelaunch(
  launch: Launch,
  prepared: PreparedRun,
  ended: EndedRun,
  verdict: StreamVerdict,
): Promise<Pick<LaunchDecision, 'outcome' | 'reason' | 'finalState' | 'resumeAt'>> {
  const { fed, team } = launch;
  const reason = `${verdict.outcome}: ${verdict.message ?? verdict.outcome}`;
  const resumeAt =
    verdict.outcome === 'rate-limited'
      ? scheduleResume(launch, {
          preset: prepared.run.preset,
          runId: prepared.run.runId,
          stats: ended.stats,
          verdict,
        })
      : null;
  await setTeamStatus(fed, team.domainId, { type: 'PAUSE' });
  const finalState = stateOf((await launch.watch.catchUp()).snapshot);
  if (ended.stop?.kind !== 'interrupted') {
    await sendSignal(fed, {
      from: team.domainId,
      to: META,
      type: 'alert',
      subject: `team ${team.domainId} paused: ${verdict.outcome}`,
      body: `${reason}\n${resumeAt ? `Resumes at ${resumeAt}: fed run waits for it, or resumes it once it has passed\n` : ''}${SETUP_OUTCOMES.includes(verdict.outcome) ? `The agent's setup needs fixing first (its login, its command or its mode: the message above says which)\n` : ''}Relaunch (resumes the agent's session): fed team resume ${team.domainId} && fed launch --team ${team.domainId}\nAgent log: ${workspacePaths(team.location).agentLog}\nTranscript: ${prepared.run.transcriptPath}`,
    });
  }
  return { outcome: 'paused', reason, finalState, resumeAt };
}

/** The team failed: the lifecycle fails with the reason (unless it is failed or over already), and meta is alerted. */
async function failTeam(
  launch: Launch,
  lifecycle: TeamLifecycle,
  verdict: StreamVerdict,
  changes: readonly string[],
): Promise<Pick<LaunchDecision, 'outcome' | 'reason' | 'finalState'>> {
  const { fed, team } = launch;
  let finalState = stateOf(lifecycle.snapshot);
  let reason: string;
  if (finalState === 'failed') {
    reason = lifecycle.snapshot.context.failure?.reason ?? 'failed';
  } else if (lifecycle.snapshot.status === 'done') {
    // A final state: the modification came after the work was accepted. Say so loudly.
    reason = `${describeCodebaseChanges(changes)} (after the lifecycle reached ${finalState})`;
  } else {
    reason = changes.length
      ? describeCodebaseChanges(changes)
      : verdict.outcome === 'rejected' && verdict.message
        ? verdict.message // the refused completion's reason, as a refusal outside a launch fails the team with
        : `${verdict.outcome}: ${verdict.message ?? verdict.outcome} (in state ${finalState}, before the lifecycle was complete)`;
    await applyLifecycleInputs(fed, team, [{ source: 'event', event: { type: 'FAIL', reason } }], {
      inspect: launch.options.inspect,
    });
    finalState = stateOf((await launch.watch.catchUp()).snapshot);
  }
  await sendSignal(fed, {
    from: team.domainId,
    to: META,
    type: 'alert',
    subject: `team ${team.domainId} failed`,
    body: `${reason}\nAgent log: ${workspacePaths(team.location).agentLog}`,
  });
  return { outcome: 'failed', reason, finalState };
}
