import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { builtOnFirstUse, isoTimestamp, nonEmptyString, teamIdSchema } from './common.js';

/**
 * `<workspace>/.fed/launch/context.json`: what `fed launch` tells the agent it starts, beside the human
 * and LLM readable prompt (`prompt.md`). The built-in agent reads this file (its path is in
 * `FED_LAUNCH_CONTEXT`); an LLM agent reads the prompt (the file `FED_LAUNCH_PROMPT` names). Both say the same.
 */
export const LAUNCH_DIR = 'launch';
export const LAUNCH_CONTEXT_FILE = 'context.json';
export const LAUNCH_PROMPT_FILE = 'prompt.md';

const absolutePath = nonEmptyString.refine(isAbsolute, { error: 'expected an absolute path' });

export const launchContextSchema = builtOnFirstUse(() =>
  z.strictObject({
    team: teamIdSchema,
    archetype: nonEmptyString,
    /** The federation root (meta's workspace). */
    root: absolutePath,
    /** The team workspace: the agent's working directory and the only place it writes. */
    workspace: absolutePath,
    /** The codebase the team studies (the federation root; for a worktree team, its worktree). */
    codebase: absolutePath,
    mission: z.strictObject({ signalId: nonEmptyString, subject: nonEmptyString, body: z.string() }),
    /** Lifecycle state at launch: a relaunch after a pause continues from here. */
    state: nonEmptyString,
    /** Deliverable file name (config `deliverable`) and its absolute path in the workspace. */
    deliverable: nonEmptyString,
    deliverablePath: absolutePath,
    /** The playbook skill file, when present (`.fed/skills/{playbookSkill}.md`). */
    playbookSkillPath: absolutePath.nullable(),
    /** Where the agent appends learning-log entries (docs/design/spec.md §2.5). */
    learningLogPath: absolutePath,
    launchedAt: isoTimestamp,
    /** The agent's CLI has fed's MCP server (`fed mcp`, the `fed_*` tools) this run (`agent.mcp`, docs/agents.md). */
    mcpServer: z.boolean().optional(),
    /**
     * Set for a fix attempt: fed's checks refused the agent's completion (`event`), and it is to fix what
     * `violations` name and send the event again — attempt `attempt` of `of` (`agent.fixAttempts`).
     */
    fix: z
      .strictObject({
        attempt: z.int().positive(),
        of: z.int().positive(),
        event: nonEmptyString,
        reason: nonEmptyString,
        violations: z.array(z.string()),
      })
      .optional(),
  }),
);
export type LaunchContext = z.infer<typeof launchContextSchema>;

/**
 * `<workspace>/.fed/launch/baseline.json`: the codebase as it was when a deliverable team was launched,
 * so the read-only rule can be checked when the agent reports its document and again after it exits.
 * `entries` maps each path that differs from the committed tree (git) or each file (no git) to a
 * fingerprint of its content.
 */
export const LAUNCH_BASELINE_FILE = 'baseline.json';

export const codebaseBaselineSchema = builtOnFirstUse(() =>
  z.strictObject({
    codebase: absolutePath,
    /**
     * A worktree team's own checkout, which lies inside `.fed/` and so outside the codebase above: its
     * tracked files are codebase too. Its `.fed/` and the `ignored` paths (the deliverable) are the team's.
     */
    worktree: absolutePath.optional(),
    ignored: z.array(z.string()).optional(),
    /**
     * The files the launcher's own stdout and stderr were open on (`<device>:<inode>`), such as
     * `fed launch > l.out` in the codebase: fed's output, not the agent's change, so never part of it.
     */
    launcherOutput: z.array(z.string()).optional(),
    kind: z.enum(['git', 'files']),
    head: z.string().nullable(),
    entries: z.record(z.string(), z.string()),
    capturedAt: isoTimestamp,
  }),
);
export type CodebaseBaseline = z.infer<typeof codebaseBaselineSchema>;
