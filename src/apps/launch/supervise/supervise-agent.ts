import type { CompletionRefusal } from '../../../core/schema/completion-refusal.js';
import type { CurrentRun } from '../../../core/schema/launch-run.js';
import type { NetworkRunRecord } from '../../../core/schema/network-policy.js';
import type { TeamLifecycle } from '../../../engine/actors/lifecycle-types.js';
import { waitAtMost } from '../../../infra/repeat.js';
import type { Launch } from '../launch.js';
import { LaunchFenced } from '../launch-options.js';
import type { StreamStats } from '../presets/agent-preset.js';
import type { AgentExit } from './agent-process.js';
import { readRefusedCompletion } from './refused-completion.js';
import type { RunningAgent, StopReason } from './running-agent.js';
import { teamLeftHere } from './team-left.js';

/** One attempt of the run once its agent has exited and its events are applied: what it left. */
export interface EndedAttempt {
  exit: AgentExit;
  /** The lifecycle as the attempt left it. */
  lifecycle: TeamLifecycle;
  /** The completion fed's checks refused while it ran and never accepted, if any (refused-completion.ts). */
  refusal: CompletionRefusal | undefined;
  /** What its stream said (turns, tokens, cost, the CLI's verdict). */
  stats: StreamStats;
  /** Why the launcher stopped it, when it did. */
  stop: StopReason | undefined;
  /** Whether it wrote anything but whitespace to stdout (a CLI refusing to start writes nothing there). */
  spoke: boolean;
  /** The run in progress as it was recorded (`.fed/launch/agent.json`), its session the attempt's. */
  current: CurrentRun;
  /**
   * What the sandbox's proxy saw of the attempt, when a network policy applied: read when asked, since a
   * connection the agent left open is logged as it closes, after the agent's exit.
   */
  network: () => NetworkRunRecord | undefined;
}

/** The run once its agent is gone for good: what judging and recording read of it, with no process left to ask. */
export interface EndedRun extends EndedAttempt {
  /** How many times a refused completion's violations were handed back to the agent (fix-attempts.ts). */
  fixAttempts: number;
}

/**
 * Supervise the agent until it exits: keep consuming the inbox while it runs; stop it on pause, timeout,
 * a limit or interruption, or once the launch may no longer hold its team (fenced, or the team moved to
 * another host). Then its stream is closed and the lifecycle read as it left it.
 */
export async function superviseAgent(launch: Launch, agent: RunningAgent): Promise<EndedAttempt> {
  const { options, started } = launch;
  const limits = options.config.agent.limits;
  let exited = false;
  const supervised = agent.process;
  void supervised.exited.then(() => (exited = true));
  let stopping: Promise<unknown> | undefined;
  const stop = () => {
    if (!stopping) {
      launch.phases.step({ type: 'STOP', reason: agent.stop!.kind });
      stopping = supervised.stop();
    }
    return stopping;
  };
  // An interruption is acted on at once, not at the next look: a look waits on the store, which a fenced
  // host cannot reach — and its agent must be gone before the others may take the team over.
  const interrupted = () => {
    agent.stop ??= stopOnAbort(options.signal!.reason);
    void stop();
  };
  options.signal?.addEventListener('abort', interrupted);
  try {
    if (options.signal?.aborted) interrupted();
    const deadline = options.timeoutSeconds ? started + options.timeoutSeconds * 1000 : Number.POSITIVE_INFINITY;
    const wallLimit = limits.maxMinutes ? started + limits.maxMinutes * 60_000 : Number.POSITIVE_INFINITY;
    while (!exited && !stopping) {
      await waitAtMost(supervised.exited, options.pollMs ?? 200);
      const lifecycle = await launch.watch.catchUp();
      if (exited) break;
      agent.noticeSilentWait();
      const left = await teamLeftHere(launch);
      if (lifecycle.snapshot.value === 'paused') agent.stop ??= { kind: 'paused' };
      else if (left !== undefined) agent.stop ??= { kind: 'fenced', message: left };
      else if (Date.now() > deadline)
        agent.stop ??= {
          kind: 'timeout',
          message: `the agent timed out after ${options.timeoutSeconds} s (--timeout)`,
        };
      else if (Date.now() > wallLimit)
        agent.stop ??= {
          kind: 'limit',
          outcome: 'timeout',
          message: `reached the wall-time limit (${limits.maxMinutes} min)`,
        };
      else if (options.signal?.aborted) agent.stop ??= stopOnAbort(options.signal.reason);
      if (agent.stop) void stop();
    }
    await stopping;
  } finally {
    options.signal?.removeEventListener('abort', interrupted);
  }
  // An interruption that arrived while the agent was exiting still means "pause", never "failed".
  if (!agent.stop && options.signal?.aborted) agent.stop = stopOnAbort(options.signal.reason);
  return endAttempt(launch, agent);
}

/** Why the launcher stops an agent whose launch was aborted: fenced (LaunchFenced), or interrupted. */
const stopOnAbort = (reason: unknown): StopReason =>
  reason instanceof LaunchFenced ? { kind: 'fenced', message: reason.message } : { kind: 'interrupted' };

/** The agent has exited and its events are applied: its stream is closed, and the lifecycle read as the attempt left it. */
async function endAttempt(launch: Launch, agent: RunningAgent): Promise<EndedAttempt> {
  const exit = await agent.ended();
  agent.stream.close();
  launch.warnings.push(...agent.stream.problems);
  const lifecycle = await launch.watch.catchUp();
  launch.watch.running = false;
  return {
    exit,
    lifecycle,
    refusal: readRefusedCompletion(launch.team.location),
    stats: agent.stream.stats,
    stop: agent.stop,
    spoke: agent.stream.spoke,
    current: agent.current(),
    network: () => agent.networkRecord(),
  };
}
