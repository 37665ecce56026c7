import type { Launch } from './launch.js';
import { refusalToFix } from './judge/fixable-refusal.js';
import { prepareFixAttempt } from './prepare/prepare-fix.js';
import type { PreparedRun } from './prepare/prepare-run.js';
import { add, type StreamStats } from './presets/agent-preset.js';
import type { RunningAgent } from './supervise/running-agent.js';
import { restartAgent } from './supervise/start-agent.js';
import { superviseAgent, type EndedRun } from './supervise/supervise-agent.js';

/**
 * A run with its chance to fix (issue 27): supervise the agent until it exits; when fed's checks refused
 * its completion and it never got one accepted, hand the violations back — a resume of the same session
 * with the fix prompt (a CLI without sessions, and the built-in agent, start again in the state the
 * lifecycle is in, told the violations in the launch context's `fix`) — up to `agent.fixAttempts` times.
 * One run, one run id and transcript: the attempts' turns, tokens and cost add up in the last one's stats.
 * `onStarted` is told each new attempt's agent, so the launch stops whichever runs when it fails.
 *
 * The launch machine keeps the whole of it `running` (machines/launch.machine.ts), while an attempt takes
 * a step of three phases: the refusal is judged fixable (judge/), the run prepared again (prepare/) and
 * its agent started and supervised (supervise/) — which is why it is here, beside launch-team.ts, and no
 * phase calls another's code.
 */
export async function superviseWithFixes(
  launch: Launch,
  prepared: PreparedRun,
  first: RunningAgent,
  onStarted: (agent: RunningAgent) => void,
): Promise<EndedRun> {
  const earlier: StreamStats[] = [];
  let agent = first;
  for (;;) {
    const ended = await superviseAgent(launch, agent);
    const refusal = refusalToFix(launch, prepared, ended);
    if (!refusal || earlier.length >= launch.options.config.agent.fixAttempts) {
      for (const stats of earlier) addStats(ended.stats, stats);
      return { ...ended, fixAttempts: earlier.length };
    }
    earlier.push(ended.stats);
    const fix = prepareFixAttempt(launch, prepared, {
      refusal,
      attempt: earlier.length,
      lifecycle: ended.lifecycle,
      sessionId: ended.current.sessionId ?? ended.current.resumedSessionId,
    });
    agent = await restartAgent(launch, fix, agent);
    onStarted(agent);
  }
}

/** An earlier attempt's counters added to the last one's; the session and model carry over when it did not repeat them. */
function addStats(into: StreamStats, earlier: StreamStats): void {
  into.turns = add(into.turns, earlier.turns);
  into.inputTokens = add(into.inputTokens, earlier.inputTokens);
  into.outputTokens = add(into.outputTokens, earlier.outputTokens);
  into.cacheReadTokens = add(into.cacheReadTokens, earlier.cacheReadTokens);
  into.cacheWriteTokens = add(into.cacheWriteTokens, earlier.cacheWriteTokens);
  into.costUsd = add(into.costUsd, earlier.costUsd);
  into.sessionId ??= earlier.sessionId;
  into.model ??= earlier.model;
}
