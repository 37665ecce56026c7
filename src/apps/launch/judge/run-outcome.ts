import { TRANSIENT_OUTCOMES, type RunOutcome } from '../../../core/schema/launch-run.js';
import type { AgentExit } from '../supervise/agent-process.js';
import type { StopReason } from '../supervise/running-agent.js';
import type { AgentPreset, StreamStats, StreamVerdict } from '../presets/agent-preset.js';
import { classifyError } from '../presets/classify-error.js';

export interface OutcomeInput {
  preset: AgentPreset;
  stats: StreamStats;
  exit: AgentExit;
  stop: StopReason | undefined;
  /** The lifecycle reached a state where a run ends well, by the archetype's completion policy. */
  finished: boolean;
  /** The lifecycle moved during the run. */
  progressed: boolean;
  /** The lifecycle failed while the agent ran: by its own FAIL (`failed`), or by fed refusing its completion (`rejected`). */
  failure?: StreamVerdict;
  /** A completion fed's checks refused and never accepted, while the lifecycle goes on: the refusal's reason. */
  refused?: string;
  /** What the agent wrote to stderr (its log's lines of this launch, Node's own left out). */
  stderr?: readonly string[];
  /** Whether the agent wrote anything to stdout: a CLI that refuses to start says nothing there. */
  spoke?: boolean;
}

/**
 * How a run ended — from the launcher's own stop, the CLI's final event, the exit code and the lifecycle,
 * never from the exit code alone (several CLIs exit 0 on rate limits, auth errors and provider errors).
 */
/** The reason of a run stopped because its team was paused (by `fed team pause` or a pause directive). */
export const STOPPED_FOR_PAUSE = 'stopped because the team was paused';

export function runOutcome(input: OutcomeInput): StreamVerdict {
  const { stats, exit, stop } = input;
  if (input.finished) return { outcome: 'completed', message: null };
  // The lifecycle is over, and says why: nothing after it (a stop, an exit code) changes that.
  if (input.failure) return input.failure;
  if (stop?.kind === 'paused' || stop?.kind === 'interrupted')
    return {
      outcome: 'interrupted',
      message: stop.kind === 'paused' ? STOPPED_FOR_PAUSE : 'stopped by Ctrl-C or SIGTERM',
    };
  if (stop?.kind === 'fenced') return { outcome: 'interrupted', message: stop.message };
  if (stop?.kind === 'timeout') return { outcome: 'timeout', message: stop.message };
  if (stop?.kind === 'limit') return { outcome: stop.outcome, message: stop.message };
  if (stop?.kind === 'hopeless') return stop.verdict;
  // What the CLI said about its own end wins over its exit code, unless it claims success.
  const said = [stats.final, stats.error].find((verdict) => verdict && verdict.outcome !== 'completed');
  if (said) return said;
  // An agent that exits (even non-zero) after its completion was refused ended because of the refusal.
  if (input.refused !== undefined) return { outcome: 'rejected', message: input.refused };
  const byCode =
    exit.code !== null && exit.code !== 0 ? input.preset.exitVerdict?.(exit.code, input.stderr ?? []) : undefined;
  if (byCode) return byCode;
  // A CLI that refuses to start (a mode it refuses as root, a flag it lacks, no login) exits at once,
  // silent on stdout, and says why on stderr: its words are the reason, not a crash — and a login it
  // lacks (Copilot: "Error: No authentication information found.", exit 1) is `auth`.
  const why = input.stderr
    ?.find((line) => line.trim() !== '')
    ?.trim()
    .slice(0, 300);
  if (exit.code !== null && exit.code !== 0 && !input.spoke && !input.progressed && why !== undefined) {
    const message = `${why} (exit ${exit.code})`;
    const words = classifyError(input.stderr!.join('\n'));
    return { outcome: words.outcome === 'auth' ? 'auth' : 'refused', message };
  }
  if (exit.signal) return { outcome: 'crashed', message: `the agent was killed by ${exit.signal}` };
  if (exit.code !== 0) return { outcome: 'crashed', message: `the agent exited with code ${exit.code}` };
  return {
    outcome: 'no-progress',
    message: input.progressed
      ? 'the agent exited 0 before the lifecycle was complete'
      : 'the agent exited 0 without reporting any lifecycle progress',
  };
}

/**
 * Whether an outcome pauses the team (to be relaunched, resuming the session) rather than failing it:
 * transient outcomes always; a CLI that could not authenticate or refused to start always too — the
 * team's work is not at fault, the agent's setup is, and once it is fixed the team goes on; a crash once
 * the agent has made progress, since its work so far is worth resuming.
 */
export function pausesTeam(outcome: RunOutcome, progressed: boolean): boolean {
  if (TRANSIENT_OUTCOMES.includes(outcome) || outcome === 'auth' || outcome === 'refused') return true;
  return progressed && outcome === 'crashed';
}
