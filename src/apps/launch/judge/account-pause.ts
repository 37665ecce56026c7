import { stateOf } from '../../../engine/actors/state-of.js';
import { setTeamStatus } from '../../../engine/actors/team-status-command.js';
import { sendSignal } from '../../../engine/messaging/send-signal.js';
import type { AccountLimit } from '../../../core/schema/account-limit.js';
import { META } from '../../../core/schema/common.js';
import type { Launch } from '../launch.js';

/** A launch paused for its account's rate limit: why, and the state the team is in now. */
export interface AccountPause {
  /** When the launch was judged: the start of the run it records, which started no agent. */
  at: string;
  /** What the run record says of it. */
  message: string;
  /** `rate-limited: <message>`: what `fed launch` reports. */
  reason: string;
  state: string;
}

/**
 * A launch on a CLI account under a rate limit another run met: the agent is not started — it would only
 * meet the same limit — and the team is paused until the same reset, meta told (so `fed run` resumes the
 * account's teams together, and the next launch resumes the session the last one left). The run that says
 * why is recorded next (record/launch-record.ts).
 */
export async function pauseForAccountLimit(launch: Launch, limit: AccountLimit): Promise<AccountPause> {
  const { fed, team } = launch;
  const message = `the ${limit.account} account is rate-limited until ${limit.resumeAt} (team ${limit.team} met the limit); the agent was not started`;
  const reason = `rate-limited: ${message}`;
  const at = new Date().toISOString();
  await setTeamStatus(fed, team.domainId, { type: 'PAUSE' });
  const state = stateOf((await launch.watch.catchUp()).snapshot);
  await sendSignal(fed, {
    from: team.domainId,
    to: META,
    type: 'alert',
    subject: `team ${team.domainId} paused: rate-limited`,
    body: `${reason}\nResumes at ${limit.resumeAt}, with the other teams on the account: fed run waits for it, or resumes it once it has passed`,
  });
  return { at, message, reason, state };
}
