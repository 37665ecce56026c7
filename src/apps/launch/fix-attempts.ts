import type { CompletionRefusal } from '../../core/schema/completion-refusal.js';
import { writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { workspacePaths } from '../../core/layout.js';
import { stateOf } from '../../engine/actors/state-of.js';
import { agentCommand } from './prepare/agent-command.js';
import { renderFixPrompt } from './prepare/fix-prompt.js';
import { launchContext } from './prepare/launch-context.js';
import { writeLaunchFiles } from './prepare/launch-files.js';
import type { EndedRun } from './judge/launch-outcome.js';
import type { Launch, PreparedRun } from './launch-state.js';
import { add, type StreamStats } from './presets/agent-preset.js';
import { readRefusedCompletion } from './supervise/refused-completion.js';
import { runOutcome } from './judge/run-outcome.js';
import { writeCurrentRun } from './run-records.js';
import { RunningAgent } from './supervise/running-agent.js';

/** The agent of a run once it is over for good: the last attempt, and how it ended (with the number of fix attempts). */
export interface SupervisedRun {
  agent: RunningAgent;
  ended: EndedRun;
}

/**
 * A run with its chance to fix (issue 27): supervise the agent until it exits; when fed's checks refused
 * its completion and it never got one accepted, hand the violations back — a resume of the same session
 * with the fix prompt (a CLI without sessions, and the built-in agent, start again in the state the
 * lifecycle is in, told the violations in the launch context's `fix`) — up to `agent.fixAttempts` times.
 * One run, one run id and transcript: the attempts' turns, tokens and cost add up in the last one's stats.
 * `onStarted` is told each new attempt's agent, so the launch stops whichever runs when it fails.
 */
export async function superviseWithFixes(
  launch: Launch,
  prepared: PreparedRun,
  first: RunningAgent,
  supervise: (agent: RunningAgent) => Promise<EndedRun>,
  onStarted: (agent: RunningAgent) => void,
): Promise<SupervisedRun> {
  const earlier: StreamStats[] = [];
  let agent = first;
  for (;;) {
    const ended = await supervise(agent);
    const refusal = refusalToFix(launch, prepared, agent, ended);
    if (!refusal || earlier.length >= launch.options.config.agent.fixAttempts) {
      for (const stats of earlier) addStats(agent.stream.stats, stats);
      return { agent, ended: { ...ended, fixAttempts: earlier.length } };
    }
    earlier.push(agent.stream.stats);
    await agent.stopAndClose();
    agent = await startFixAttempt(launch, prepared, agent, ended, refusal, earlier.length);
    onStarted(agent);
  }
}

/**
 * The refused completion to hand back, if the run would end `rejected` for it: the agent exited on its
 * own (no pause, timeout, limit or interruption), the lifecycle goes on, and the CLI reported nothing
 * else (a rate limit or an auth error is dealt with as such).
 */
function refusalToFix(
  launch: Launch,
  prepared: PreparedRun,
  agent: RunningAgent,
  ended: EndedRun,
): CompletionRefusal | undefined {
  const { team, archetype, watch, options } = launch;
  const { snapshot } = ended.lifecycle;
  const refusal = readRefusedCompletion(team.location);
  if (!refusal?.fixable || snapshot.status !== 'active' || options.signal?.aborted) return undefined;
  const verdict = runOutcome({
    preset: prepared.run.preset,
    stats: agent.stream.stats,
    exit: ended.exit,
    stop: agent.stop,
    finished: archetype.completion.settled(snapshot, team) !== undefined,
    progressed: watch.progressed,
    refused: refusal.reason,
  });
  return verdict.outcome === 'rejected' ? refusal : undefined;
}

/** The next attempt: the launch files rewritten for the lifecycle as it is now, with the fix; the session resumed. */
async function startFixAttempt(
  launch: Launch,
  prepared: PreparedRun,
  last: RunningAgent,
  ended: EndedRun,
  refusal: CompletionRefusal,
  attempt: number,
): Promise<RunningAgent> {
  const { fed, root, team, archetype, options, watch } = launch;
  const { snapshot } = ended.lifecycle;
  const state = stateOf(snapshot);
  const fix = {
    attempt,
    of: options.config.agent.fixAttempts,
    event: refusal.event,
    reason: refusal.reason,
    violations: refusal.violations,
  };
  const context = {
    ...launchContext(root, team, options.config, state, prepared.context.mission, prepared.context.mcpServer),
    fix,
  };
  const files = writeLaunchFiles(fed, team, context, {
    archetype,
    brief: archetype.agentBrief(context, snapshot, team),
  });
  const fixPromptPath = workspacePaths(team.location).fixPrompt;
  const prompt = renderFixPrompt(context, archetype);
  writeFileAtomic(fixPromptPath, prompt);
  const { sessionId, resumedSessionId } = last.current();
  const run = agentCommand(context, options, null, fixPromptPath, prompt, {
    sandboxed: prepared.sandbox !== undefined,
    fix: { runId: prepared.run.runId, sessionId: sessionId ?? resumedSessionId, attempt },
  });
  watch.running = true;
  const agent = await RunningAgent.start(
    fed,
    team,
    { ...prepared, context, files, run },
    options,
    watch.relay,
    watch.trace,
    // The session it resumes has cost what it had when the last attempt began, and that attempt.
    last.stream.sessionCostBeforeUsd + (last.stream.stats.costUsd ?? 0),
  );
  // The attempts are one run: it started when the first did.
  agent.startedAt = last.startedAt;
  writeCurrentRun(fed, team, agent.current());
  return agent;
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
