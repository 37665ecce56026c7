import { runPreset, type AgentCommandOptions } from '../launch/prepare/agent-command.js';
import { findProgram } from '../launch/supervise/agent-process.js';
import { shimmedCommands } from '../launch/supervise/command-shims.js';

/**
 * `--agent` given to a launcher of many launches (`fed run`, `fed serve`), checked once before any starts:
 * a command that names no program (empty, an unclosed quote) or one that is not there would be refused by
 * every launch alike — bad input, refused up front (exit 2) as `fed launch` refuses it, rather than a line
 * per team (fed run) or launches retried with a backoff for ever (fed serve). A command fed puts on the
 * agent's PATH itself (`fed`, `fed-agent`) is there.
 */
export function refuseUnrunnableAgent(root: string, options: AgentCommandOptions & { env?: NodeJS.ProcessEnv }): void {
  if (options.agent === undefined) return;
  const [file] = runPreset(root, options).program;
  if (file === undefined || file in shimmedCommands()) return;
  findProgram(file, { cwd: options.cwd ?? process.cwd(), env: options.env ?? process.env, commandFrom: '--agent' });
}
