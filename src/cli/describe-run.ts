import { SANDBOX_ALLOWANCES } from '../core/schema/config.js';
import type { LaunchRun } from '../core/schema/launch-run.js';

/** One line about an agent run: `claude completed, 12 turns, $0.4210, session 5f3…, sandboxed, transcript …`. */
export function describeRun(run: LaunchRun): string {
  return [
    `${run.preset} ${run.outcome}${run.reason ? ` (${run.reason})` : ''}`,
    run.turns !== null ? `${run.turns} turns` : undefined,
    run.costUsd !== null ? `$${run.costUsd.toFixed(4)}` : undefined,
    run.fixAttempts ? `${run.fixAttempts} fix attempt${run.fixAttempts === 1 ? '' : 's'}` : undefined,
    run.sessionId ? `session ${run.sessionId}` : undefined,
    // Said plainly each time: what stood between the agent and the user's files, and what the team gave up.
    sandboxLine(run),
    `transcript ${run.transcriptPath}`,
  ]
    .filter(Boolean)
    .join(', ');
}

/** Whether the run was sandboxed, and what its team gave up, in words. */
export function sandboxLine(run: Pick<LaunchRun, 'sandboxed' | 'sandboxAllows'>): string {
  if (!run.sandboxed)
    return "not sandboxed: the agent ran as you, with your home, your credentials and this machine's network";
  const allows = run.sandboxAllows ?? [];
  return allows.length
    ? `sandboxed, allowing ${allows.map((name) => `${name} (${SANDBOX_ALLOWANCES[name]})`).join(', ')}`
    : 'sandboxed';
}
