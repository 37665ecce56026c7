import { isAbsolute, join, relative, resolve } from 'node:path';
import { RefusedError } from '../../../core/errors.js';
import { randomBytes } from '../../../infra/crypto/random.js';
import { writeFileAtomic } from '../../../infra/fs/atomic-write.js';
import { workspacePaths } from '../../../core/layout.js';
import type { AgentPresetName, FederationConfig } from '../../../core/schema/config.js';
import type { LaunchContext } from '../../../core/schema/launch-context.js';
import type { LaunchRun } from '../../../core/schema/launch-run.js';
import type { AgentPreset, PresetCommand } from '../presets/agent-preset.js';
import { archetypeFor } from '../../../engine/archetypes/catalog.js';
import { choosePreset } from '../presets/catalog.js';
import { fedMcpServer } from './mcp-server.js';
import { splitCommand } from '../../../core/split-command.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import { isBuiltInAgent } from '../builtin-agent.js';

const MAX_ARGUMENT_BYTES = 120 * 1024;

/** What one run of a team's agent will execute: the preset, the command, and the session it resumes. */
export interface AgentCommand {
  runId: string;
  preset: AgentPreset;
  command: PresetCommand;
  resumedSessionId: string | null;
  transcriptPath: string;
  /** The prompt this run is given: the launch prompt, or a resumed session's continuation prompt. */
  prompt: string;
  /** Where the run keeps its prompt, once (`<workspace>/.fed/logs/runs/<runId>.prompt.md`, beside its transcript). */
  promptPath: string;
  /** Where the program was named: `--agent`, or the config field (AgentCommandOptions.agentCommandFrom). */
  commandFrom: string;
  /**
   * The command as the run records it: `command.argv` with the prompt, in the argument that carries it,
   * replaced by `<prompt: .fed/logs/runs/<runId>.prompt.md>` — a prompt is kilobytes, and the record names
   * its file instead of repeating it in every run and in `lastRun`.
   */
  recordedArgv: string[];
}

export interface AgentCommandOptions {
  config: FederationConfig;
  /** `--agent`: replaces `agentCommand`; its preset comes from its program name unless `preset` is given. */
  agent?: string;
  /**
   * The config field `config.agentCommand` was taken from, for the messages that say where to change it:
   * `agentCommand` (the default), or a team's own `agent.teams.<id>.command` (teamLaunchConfig).
   */
  agentCommandFrom?: string;
  /** `--preset`: replaces `agent.preset`. */
  preset?: AgentPresetName;
  /** Where a relative `--agent` path is found: the caller's current directory (default: this process's). */
  cwd?: string;
}

/**
 * A program given as a relative path means one relative to where it was given: `--agent ./my-agent` to
 * the caller's current directory, `agentCommand` to the federation root (like every path in the config)
 * — never to the team's workspace, where the agent runs. A bare name is looked up on PATH.
 */
function locateProgram(program: string[], root: string, options: AgentCommandOptions): string[] {
  const [file, ...args] = program;
  if (!file?.includes('/') || isAbsolute(file)) return program;
  return [resolve(options.agent ? (options.cwd ?? process.cwd()) : root, file), ...args];
}

/** Where the program a run starts is named: `--agent`, or the config field it was taken from. */
export function agentCommandFrom(options: AgentCommandOptions): string {
  return options.agent !== undefined ? '--agent' : (options.agentCommandFrom ?? 'agentCommand');
}

/** The program a run starts (`--agent`, else `agentCommand`, split into words) and the preset that drives it. */
export function runPreset(root: string, options: AgentCommandOptions): { program: string[]; preset: AgentPreset } {
  const program = locateProgram(
    splitCommand(options.agent ?? options.config.agentCommand, agentCommandFrom(options)),
    root,
    options,
  );
  const preset = choosePreset(program[0]!, options.preset ?? (options.agent ? undefined : options.config.agent.preset));
  return { program, preset };
}

/**
 * Whether the run starts fed's own built-in agent: its preset, and the program that agent's — not a
 * command given the fed-agent preset (`agent.preset`), which is any other program and gets no exemption
 * a built-in agent has (its own connection to a backend, no network policy to enforce without a sandbox).
 */
export function runsBuiltInAgent(root: string, team: RegistryEntry, options: AgentCommandOptions): boolean {
  const { program, preset } = runPreset(root, options);
  return (
    preset.name === 'fed-agent' &&
    isBuiltInAgent(program, { cwd: team.location, launchBin: workspacePaths(team.location).launchBin })
  );
}

/** A short continuation prompt for a resumed session: the agent already has the mission in its context. */
function continuationPrompt(context: LaunchContext, last: LaunchRun): string {
  return `Continue your mission for team ${context.team} where you left off. Your last run ended: ${last.outcome}${last.reason ? ` (${last.reason})` : ''}.
The team's lifecycle is now in state \`${context.state}\`; carry on from there and keep reporting each step with ${context.mcpServer ? '`fed_event` (or `fed event`)' : '`fed event`'}.
Your full instructions are still in ${workspacePaths(context.workspace).launchPrompt}; read them again if you need to.
`;
}

/** A fix attempt within a run (fix-attempts.ts): the run it belongs to, and the session it resumes when the CLI can. */
export interface FixTurn {
  runId: string;
  sessionId: string | null;
  /** Which attempt this is (1, 2, …): its prompt file is the run's with `.fix-<attempt>`. */
  attempt: number;
}

/**
 * The command for this run. A run after a pause, crash or transient outcome resumes the same session —
 * by the id the CLI reported (or fed assigned) last time, never "the last session", which picks the wrong
 * one when several teams share a machine — when the CLI can and the preset is unchanged. `sandboxed`:
 * fed's bubblewrap sandbox wraps the run. A fix attempt (`fix`) resumes the session of the run it belongs
 * to, with `prompt` (the violations) as it is, kept in a prompt file of its own beside the run's.
 */
export function agentCommand(
  context: LaunchContext,
  options: AgentCommandOptions,
  lastRun: LaunchRun | null,
  promptFile: string,
  prompt: string,
  { sandboxed = false, fix }: { sandboxed?: boolean; fix?: FixTurn } = {},
): AgentCommand {
  const { program, preset } = runPreset(context.root, options);
  const lastSession = fix ? fix.sessionId : lastRun?.preset === preset.name ? lastRun.sessionId : null;
  const resumedSessionId = preset.resumable ? lastSession : null;
  let runPrompt = prompt;
  let runPromptPath = promptFile;
  if (resumedSessionId && lastRun && !fix) {
    runPrompt = continuationPrompt(context, lastRun);
    runPromptPath = workspacePaths(context.workspace).continuationPrompt;
    writeFileAtomic(runPromptPath, runPrompt);
  }
  const runId =
    fix?.runId ??
    `${new Date().toISOString().replace(/[-:.]/g, '').replace('T', '-').slice(0, 15)}-${randomBytes(3).toString('hex')}`;
  const command = preset.command({
    program,
    prompt: runPrompt,
    promptFile: runPromptPath,
    resumeSessionId: resumedSessionId,
    newSessionName: `fed-${context.team}-${runId}`,
    model: options.config.agent.model,
    limits: options.config.agent.limits,
    args: options.config.agent.args,
    sandboxed,
    asRoot: process.getuid?.() === 0,
    readOnlyCodebase: archetypeFor(context.archetype)?.readOnlyCodebase ?? false,
    mcp: fedMcpServer(context, options.config, preset, sandboxed),
  });
  // Linux refuses a single argument over 128 KiB (E2BIG): say what to do instead of failing obscurely.
  const tooLong = command.argv.find((word) => Buffer.byteLength(word) > MAX_ARGUMENT_BYTES);
  if (tooLong) {
    throw new RefusedError(
      'PROMPT_TOO_LONG',
      `the prompt (${Buffer.byteLength(tooLong)} bytes) is too long to pass to ${preset.name} as an argument; shorten the mission or the playbook skill, or use {promptFile} or a preset that reads a file (goose, aider)`,
    );
  }
  // No process can be given an argument with a NUL byte (spawn throws): refuse it by name instead.
  if (command.argv.some((word) => word.includes('\0'))) {
    throw new RefusedError(
      'PROMPT_NUL_BYTE',
      `the prompt contains a NUL byte, which cannot be passed to ${preset.name} as an argument; remove it from the mission (the directive signal) or the playbook skill, or use {promptFile} or a preset that reads a file (goose, aider)`,
    );
  }
  const runs = workspacePaths(context.workspace).runTranscripts;
  const transcriptPath = join(runs, `${runId}.${preset.stream === 'json' ? 'jsonl' : 'log'}`);
  const promptPath = join(runs, `${runId}${fix ? `.fix-${fix.attempt}` : ''}.prompt.md`);
  const placeholder = `<prompt: ${relative(context.workspace, promptPath)}>`;
  // A function replacement: a string one would expand `$&`, `$$`… found in the placeholder's path.
  const recordedArgv = command.argv.map((word) => (runPrompt ? word.replaceAll(runPrompt, () => placeholder) : word));
  return {
    runId,
    preset,
    command,
    commandFrom: agentCommandFrom(options),
    resumedSessionId,
    transcriptPath,
    prompt: runPrompt,
    promptPath,
    recordedArgv,
  };
}
