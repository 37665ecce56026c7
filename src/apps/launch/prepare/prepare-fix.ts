import type { CompletionRefusal } from '../../../core/schema/completion-refusal.js';
import { workspacePaths } from '../../../core/layout.js';
import type { TeamLifecycle } from '../../../engine/actors/lifecycle-types.js';
import { stateOf } from '../../../engine/actors/state-of.js';
import { writeFileAtomic } from '../../../infra/fs/atomic-write.js';
import type { Launch } from '../launch.js';
import { agentCommand } from './agent-command.js';
import { renderFixPrompt } from './fix-prompt.js';
import { launchContext } from './launch-context.js';
import { writeLaunchFiles } from './launch-files.js';
import type { PreparedRun } from './prepare-run.js';
import { writeFilter } from './sandbox/sandbox-network.js';

/** What a fix attempt is prepared from: the refusal to hand back, the lifecycle as the last attempt left it, its session. */
export interface FixAttempt {
  refusal: CompletionRefusal;
  /** 1 for the first fix attempt. */
  attempt: number;
  lifecycle: TeamLifecycle;
  /** The session the last attempt ran (or resumed), which this one resumes. */
  sessionId: string | null;
}

/**
 * The run of a fix attempt (fix-attempts.ts), prepared again from `prepared`: the launch files rewritten
 * for the lifecycle as it is now, with the violations (the launch context's `fix`), the fix prompt, and
 * the command that resumes the session — one run, one run id; the sandbox's network filter written again
 * (the agent that ran may have changed the file).
 */
export function prepareFixAttempt(launch: Launch, prepared: PreparedRun, fixing: FixAttempt): PreparedRun {
  const { fed, root, team, archetype, options } = launch;
  const { refusal, attempt } = fixing;
  const { snapshot } = fixing.lifecycle;
  const fix = {
    attempt,
    of: options.config.agent.fixAttempts,
    event: refusal.event,
    reason: refusal.reason,
    violations: refusal.violations,
  };
  const context = {
    ...launchContext(team, {
      root,
      config: options.config,
      state: stateOf(snapshot),
      mission: prepared.context.mission,
      mcpServer: prepared.context.mcpServer,
    }),
    fix,
  };
  const files = writeLaunchFiles(fed, team, context, {
    archetype,
    brief: archetype.agentBrief(context, snapshot, team),
  });
  const fixPromptPath = workspacePaths(team.location).fixPrompt;
  const prompt = renderFixPrompt(context, archetype);
  writeFileAtomic(fixPromptPath, prompt);
  const run = agentCommand(context, options, null, fixPromptPath, prompt, {
    sandboxed: prepared.sandbox !== undefined,
    fix: { runId: prepared.run.runId, sessionId: fixing.sessionId, attempt },
  });
  if (prepared.sandbox) writeFilter(team.location, prepared.sandbox.allows);
  return { ...prepared, context, files, run };
}
