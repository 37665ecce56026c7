import type { CompletionRefusal } from '../../../core/schema/completion-refusal.js';
import type { Launch } from '../launch.js';
import type { PreparedRun } from '../prepare/prepare-run.js';
import type { EndedAttempt } from '../supervise/supervise-agent.js';
import { runOutcome } from './run-outcome.js';

/**
 * The refused completion to hand back to the agent (fix-attempts.ts), if the run would end `rejected` for
 * it: a slip the agent can fix, the agent exited on its own (no pause, timeout, limit or interruption),
 * the lifecycle goes on, and the CLI reported nothing else (a rate limit or an auth error is dealt with as
 * such).
 */
export function refusalToFix(
  launch: Launch,
  prepared: PreparedRun,
  ended: EndedAttempt,
): CompletionRefusal | undefined {
  const { team, archetype, watch, options } = launch;
  const { snapshot } = ended.lifecycle;
  const { refusal } = ended;
  if (!refusal?.fixable || snapshot.status !== 'active' || options.signal?.aborted) return undefined;
  const verdict = runOutcome({
    preset: prepared.run.preset,
    stats: ended.stats,
    exit: ended.exit,
    stop: ended.stop,
    finished: archetype.completion.settled(snapshot, team) !== undefined,
    progressed: watch.progressed,
    refused: refusal.reason,
  });
  return verdict.outcome === 'rejected' ? refusal : undefined;
}
