import type { FederationConfig } from '../../core/schema/config.js';
import type { LaunchRun } from '../../core/schema/launch-run.js';
import type { NeedsYouItem } from '../../core/schema/needs-you.js';
import type { SignalMessage } from '../../core/schema/signal.js';

/**
 * What a federation's `importHook` module (docs/design/spec.md §2.3) may export. Every hook is optional and may be
 * async. Commands that run the federation (`fed launch`, `fed actors run`, `fed monitor`) load the module
 * and call them; the types are exported so a hook file can be written against them:
 *
 *   import type { FederationHooks } from 'fed';
 *   export const onTransition: FederationHooks['onTransition'] = (team, from, to) => { … };
 */
export interface HookContext {
  root: string;
  config: FederationConfig;
  /** The command that loaded the hooks, e.g. `launch`. */
  command: string;
}

/** The outcome of one `fed launch`, as printed with `--json`. */

export interface LaunchResult {
  team: string;
  /** Lifecycle state when the launch ended. */
  state: string;
  /**
   * How the launch ended: the agent finished the team's work (its archetype's completion policy), it
   * did its part and the team waits (for meta's review or merge, for the next question), the team was
   * paused, or it failed.
   */
  outcome: 'complete' | 'waiting' | 'paused' | 'failed';
  /** The agent's exit code (null when it was stopped by a signal). */
  agentExitCode: number | null;
  agentSignal: string | null;
  /** Why the team failed, when it did. */
  reason: string | null;
  /** What happens next when the team waits (outcome `waiting`), e.g. `fed team review <team>`. */
  next: string | null;
  deliverablePath: string;
  deliverableExists: boolean;
  logPath: string;
  durationMs: number;
  /** The run: preset, session, honest outcome, turns, tokens, cost (also `lastRun` in `fed team show --json`). */
  lastRun: LaunchRun;
  warnings: string[];
}

export interface FederationHooks {
  onInit?(context: HookContext): void | Promise<void>;
  onTransition?(team: string, from: string, to: string, event: string): void | Promise<void>;
  onSignal?(signal: SignalMessage): void | Promise<void>;
  onLaunchComplete?(result: LaunchResult): void | Promise<void>;
  /** Something started waiting on a person (a review, a paused or failed team, a question, an escalation): called once per item. */
  onNeedsYou?(item: NeedsYouItem): void | Promise<void>;
}

export const HOOK_NAMES = ['onInit', 'onTransition', 'onSignal', 'onLaunchComplete', 'onNeedsYou'] as const;
