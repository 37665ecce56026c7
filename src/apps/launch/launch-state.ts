import type { AccountLimit } from '../../core/schema/account-limit.js';
import type { CodebaseBaseline, LaunchContext } from '../../core/schema/launch-context.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import type { Archetype } from '../../engine/archetypes/archetype.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { AgentCommand } from './prepare/agent-command.js';
import type { HostPolicy } from './prepare/sandbox/host-policy.js';
import type { LaunchOptions } from './launch-options.js';
import type { LaunchPhases } from './launch-phases.js';
import type { LaunchWatch } from './launch-watch.js';

/** What every step of one launch shares. */
export interface Launch {
  fed: Federation;
  root: string;
  team: RegistryEntry;
  archetype: Archetype;
  options: LaunchOptions;
  backend: FederationBackend;
  watch: LaunchWatch;
  phases: LaunchPhases;
  /** Problems that do not stop the launch, reported with its result. */
  warnings: string[];
  /** When the launch began (ms): the timeout and wall-time limit count from here. */
  started: number;
}

/** The run as prepared before the agent starts: its context and prompt files, its command, sandbox and baseline. */
export interface PreparedRun {
  context: LaunchContext;
  files: { contextPath: string; promptPath: string };
  run: AgentCommand;
  stateBefore: string;
  /** The bubblewrap wrapper of a read-only team for the agent's program, when there is one. */
  sandbox: ((program: string) => string[]) | undefined;
  /** The hosts the sandboxed agent may reach through fed's proxy; undefined when no policy applies (open, no sandbox). */
  network?: HostPolicy;
  /** The codebase as it was before the run, when the read-only rule is checked before and after instead. */
  baseline: CodebaseBaseline | undefined;
  /** The rate limit the run's CLI account is under, when another run met one that has not reset yet. */
  accountLimit?: AccountLimit;
}
