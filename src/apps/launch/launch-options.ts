import type { InspectionEvent } from 'xstate';
import type { LaunchEvent, LaunchPhase } from '../../../machines/launch.machine.js';
import type { FederationConfig } from '../../core/schema/config.js';
import type { JournalLine } from '../../core/schema/lifecycle-state.js';
import type { LoadedHooks } from '../../engine/hooks/load-hooks.js';
import type { InProcessCommand } from './supervise/agent-broker.js';
import type { SpareWatchdogs } from './supervise/spare-watchdogs.js';
import type { InspectionRecord } from '../../infra/inspect/inspection-log.js';
import type { AgentCommandOptions } from './prepare/agent-command.js';
import type { WorkflowTrace } from './run-trace.js';

/** What a caller of `launchTeam` chooses: the agent, its limits, and what it is told while the launch runs. */
export interface LaunchOptions extends AgentCommandOptions {
  config: FederationConfig;
  /** `--timeout`: stop a hung agent after this long and pause the team (outcome `timeout`). */
  timeoutSeconds?: number;
  /**
   * Interrupts the launch (Ctrl-C): the agent is stopped and the team paused, to be resumed later. Aborted
   * with a LaunchFenced, the agent is stopped and the team left as it is (fencing).
   */
  signal?: AbortSignal;
  /** Told about every lifecycle journal line as it happens (transitions and recorded events). */
  onProgress?: (line: JournalLine) => void;
  hooks?: LoadedHooks;
  inspect?: (event: InspectionEvent) => void;
  /** Given the inspection records of the agent's own `fed event`s (see src/infra/inspect/agent-inspection.ts). */
  inspectRecord?: (record: InspectionRecord) => void;
  /** Told each step of the launch sequence (machines/launch.machine.ts): where the launch is now, and the event that moved it. */
  onPhase?: (phase: LaunchPhase, event: LaunchEvent) => void;
  /** Runs a sandboxed agent's fed commands in this process (the CLI's runCli; agent-broker.ts). */
  runInProcess?: InProcessCommand;
  /** Watchdogs started ahead by a launcher of many launches (`fed serve`): the agent starts without waiting for one. */
  watchdogs?: SpareWatchdogs;
  /** Base environment of the agent (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** How often the inbox and lifecycle are checked while the agent runs (default 200 ms). */
  pollMs?: number;
  /** How long a stopped agent gets to exit before SIGKILL (default 5 s). */
  graceMs?: number;
  /** The `fed run` this launch is part of: its span is the parent of the launch's (run-trace.ts). */
  workflow?: WorkflowTrace;
  /**
   * What makes the team launchable (`fed run`, `fed serve`: the new run a new mission asks for, the resume
   * of a team its last launch paused), done once the launch holds the team's lease and before its status
   * is checked: of several launchers that judged the team at once, only the one that launches it does it.
   */
  whenLeased?: () => Promise<void>;
}

/**
 * The reason a launcher aborts a launch's `signal` with when the launch may no longer hold its team
 * (fencing: its host out of touch with the store long enough that the others may soon take it for lost and
 * run the team): the agent is stopped at once, the run recorded as interrupted, and the team left as it is
 * — neither paused nor failed by a host that may no longer hold it — for whichever host runs it next.
 */
export class LaunchFenced {
  constructor(readonly message: string) {}
}
