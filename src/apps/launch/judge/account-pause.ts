import { stateOf } from '../../../engine/actors/state-of.js';
import { setTeamStatus } from '../../../engine/actors/team-status-command.js';
import type { LaunchResult } from '../../../engine/hooks/federation-hooks.js';
import { sendSignal } from '../../../engine/messaging/send-signal.js';
import type { AccountLimit } from '../../../core/schema/account-limit.js';
import { META } from '../../../core/schema/common.js';
import type { LaunchRun } from '../../../core/schema/launch-run.js';
import type { Launch, PreparedRun } from '../launch-state.js';
import { recordLaunchEnd } from '../record/launch-record.js';
import { UNMEASURED_RUN } from '../run-records.js';

/**
 * A launch on a CLI account under a rate limit another run met: the agent is not started — it would only
 * meet the same limit — and the team is paused until the same reset, with a run that says why (so `fed
 * run` resumes the account's teams together, and the next launch resumes the session the last one left).
 */
export async function pauseForAccountLimit(
  launch: Launch,
  prepared: PreparedRun,
  limit: AccountLimit,
): Promise<LaunchResult> {
  const { fed, team } = launch;
  const { run } = prepared;
  const message = `the ${limit.account} account is rate-limited until ${limit.resumeAt} (team ${limit.team} met the limit); the agent was not started`;
  const reason = `rate-limited: ${message}`;
  const startedAt = new Date().toISOString();
  await setTeamStatus(fed, team.domainId, { type: 'PAUSE' });
  const state = stateOf((await launch.watch.catchUp()).snapshot);
  launch.phases.step({ type: 'JUDGED', outcome: 'paused' });
  await sendSignal(fed, {
    from: team.domainId,
    to: META,
    type: 'alert',
    subject: `team ${team.domainId} paused: rate-limited`,
    body: `${reason}\nResumes at ${limit.resumeAt}, with the other teams on the account: fed run waits for it, or resumes it once it has passed`,
  });
  const lastRun: LaunchRun = {
    runId: run.runId,
    preset: run.preset.name,
    command: run.recordedArgv,
    // The session the last run left is still the one to resume: this run started none.
    sessionId: run.resumedSessionId,
    resumedSessionId: run.resumedSessionId,
    outcome: 'rate-limited',
    reason: message,
    ...UNMEASURED_RUN,
    model: launch.options.config.agent.model ?? null,
    resumeAt: limit.resumeAt,
    promptPath: null,
    stateBefore: prepared.stateBefore,
    stateAfter: state,
    progressed: false,
    sandboxed: false,
    transcriptPath: run.transcriptPath,
    startedAt,
    endedAt: new Date().toISOString(),
  };
  const result = await recordLaunchEnd(launch, prepared, lastRun, {
    outcome: 'paused',
    state,
    reason,
    next: null,
    exit: null,
  });
  launch.phases.step({ type: 'RECORDED' });
  return result;
}
