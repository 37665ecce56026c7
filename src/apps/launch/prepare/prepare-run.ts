import { basename } from 'node:path';
import type { AccountLimit } from '../../../core/schema/account-limit.js';
import { DEFAULT_AGENT_COMMAND } from '../../../core/schema/config.js';
import type { CodebaseBaseline, LaunchContext } from '../../../core/schema/launch-context.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import { RefusedError } from '../../../core/errors.js';
import { captureCodebase, launcherOutputFiles } from '../../../engine/deliverable/codebase-guard.js';
import { writeBaseline } from '../../../engine/deliverable/codebase-baseline.js';
import { playbookSkillFile } from '../../../infra/config/referenced-files.js';
import { InspectionRelay, inspectionRelayPath } from '../../../infra/inspect/agent-inspection.js';
import { accountOf, activeAccountLimit } from '../account-limit.js';
import type { Launch } from '../launch.js';
import { readLastRun } from '../run-records.js';
import { agentCommand, agentCommandFrom, runPreset, runsBuiltInAgent, type AgentCommand } from './agent-command.js';
import { launchContext } from './launch-context.js';
import { writeLaunchFiles } from './launch-files.js';
import { mcpWired } from './mcp-server.js';
import type { LaunchReady } from './refusals.js';
import { hostPolicy, teamNetworkPolicy, type HostPolicy } from './sandbox/host-policy.js';
import { teamSandbox, type TeamSandbox } from './sandbox/team-sandbox.js';

/** The run as prepared before the agent starts: its context and prompt files, its command, sandbox and baseline. */
export interface PreparedRun {
  context: LaunchContext;
  files: { contextPath: string; promptPath: string };
  run: AgentCommand;
  stateBefore: string;
  /** The bubblewrap wrapper of a read-only team for the agent's program, when there is one. */
  sandbox: TeamSandbox | undefined;
  /** The hosts the sandboxed agent may reach through fed's proxy; undefined when no policy applies (open, no sandbox). */
  network?: HostPolicy;
  /** The codebase as it was before the run, when the read-only rule is checked before and after instead. */
  baseline: CodebaseBaseline | undefined;
  /** The rate limit the run's CLI account is under, when another run met one that has not reset yet. */
  accountLimit?: AccountLimit;
}

/**
 * Everything the agent needs before it starts: its context and prompt (with the archetype's brief), the
 * inspection relay, its command (refused when the built-in agent cannot do the archetype's work), and
 * the team's sandbox — or, without one, for a team that studies the codebase the baseline checked after
 * the run.
 */
export async function prepareRun(launch: Launch, ready: LaunchReady): Promise<PreparedRun> {
  const { root, team, archetype, options, warnings } = launch;
  const { stateBefore } = ready;
  const context = launchContext(team, {
    root,
    config: options.config,
    state: stateBefore,
    mission: ready.mission,
    mcpServer: mcpWired(runPreset(root, options).preset, options.config),
  });
  if (!context.playbookSkillPath) {
    warnings.push(
      `the playbook skill ${playbookSkillFile(root, options.config)} does not exist, so the launch prompt has none; create it or fix playbookSkill (fed config show checks it)`,
    );
  }
  const files = writeLaunchFiles(launch.fed, team, context, {
    archetype,
    brief: archetype.agentBrief(context, ready.lifecycle.snapshot, team),
  });
  if (options.inspectRecord) launch.watch.relay = new InspectionRelay(inspectionRelayPath(team.location));
  const { program, preset } = runPreset(root, options);
  if (!archetype.builtInAgent && basename(program[0] ?? '') === DEFAULT_AGENT_COMMAND) {
    throw new RefusedError(
      'NO_BUILT_IN_AGENT',
      `the built-in agent ${DEFAULT_AGENT_COMMAND} cannot do the work of a ${archetype.id} team ("${team.domainId}"); launch it with an LLM agent: fed launch --team ${team.domainId} --agent "<command>" (or set ${agentCommandFrom(options)})`,
    );
  }
  // Before the command: a CLI with a sandbox of its own is told to leave it off inside fed's.
  const policy = hostPolicy(teamNetworkPolicy(options.config.agent, team.domainId), preset.providerHosts);
  const sandbox = await teamSandbox(launch, context, {
    policy,
    builtIn: runsBuiltInAgent(root, team, options),
    homeFiles: options.config.agent.homeFiles ?? preset.homeFiles,
    homeVariables: preset.homeVariables,
  });
  const network = sandbox?.network;
  const run = agentCommand(context, options, readLastRun(team.location), files.promptPath, files.prompt, {
    sandboxed: sandbox !== undefined,
  });
  // The account's limit, before the baseline: the agent is not started while it lasts (the launch then
  // undoes what the sandbox made ready: TeamSandbox.afterRun).
  const accountLimit = activeAccountLimit(
    launch.fed,
    accountOf(options.config, run.preset.name),
    launch.fed.now(),
    warnings,
  );
  if (accountLimit) return { context, files, run, stateBefore, sandbox, network, baseline: undefined, accountLimit };
  // Without the sandbox, the read-only rule is checked before and after: the codebase as seen from the
  // federation root (`.fed/` left out, so the team's own workspace is never a modification) and, for a
  // worktree team, its own checkout — but not a file this launcher's own output goes to (`fed launch > l.out`).
  const baseline =
    archetype.readOnlyCodebase && !sandbox
      ? await captureCodebase(root, { ...worktreeScope(team, context), launcherOutput: launcherOutputFiles() })
      : undefined;
  if (baseline) writeBaseline(launch.fed, team, baseline);
  return { context, files, run, stateBefore, sandbox, network, baseline };
}

/** A worktree team's own checkout is codebase too, except its deliverable. */
function worktreeScope(team: RegistryEntry, context: LaunchContext): { worktree?: string; ignored?: string[] } {
  return team.placementType === 'worktree' ? { worktree: team.location, ignored: [context.deliverable] } : {};
}
