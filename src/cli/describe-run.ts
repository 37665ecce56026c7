import type { LaunchRun } from '../core/schema/launch-run.js';

/** One line about an agent run: `claude completed, 12 turns, $0.4210, session 5f3…, sandboxed, transcript …`. */
export function describeRun(run: LaunchRun): string {
  return [
    `${run.preset} ${run.outcome}${run.reason ? ` (${run.reason})` : ''}`,
    run.turns !== null ? `${run.turns} turns` : undefined,
    run.costUsd !== null ? `$${run.costUsd.toFixed(4)}` : undefined,
    run.fixAttempts ? `${run.fixAttempts} fix attempt${run.fixAttempts === 1 ? '' : 's'}` : undefined,
    run.sessionId ? `session ${run.sessionId}` : undefined,
    // Said plainly each time: nothing stood between such an agent and the user's files.
    run.sandboxed ? 'sandboxed' : 'not sandboxed: the agent ran as you, with your home',
    `transcript ${run.transcriptPath}`,
  ]
    .filter(Boolean)
    .join(', ');
}
