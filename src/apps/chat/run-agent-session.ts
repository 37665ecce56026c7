import { FedError } from '../../core/errors.js';
import { runCaptured } from '../../infra/process/run-captured.js';

export interface AgentSessionOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The session is killed (with everything it started) after this long. */
  timeoutMs: number;
  /** Stops the session early, e.g. when the bridge is interrupted. */
  signal?: AbortSignal;
  /** Names the command in errors, e.g. `chatConfig.command`. */
  what: string;
}

/** A session that did not end well: its command could not start, failed, or ran out of time. */
export class ChatAgentError extends FedError {
  constructor(message: string) {
    super('CHAT_AGENT_FAILED', message, { refusal: false });
  }
}

/** Run one headless agent-host session (see runCaptured) and return its standard output. */
export async function runAgentSession(command: readonly string[], options: AgentSessionOptions): Promise<string> {
  const name = `the chat agent "${command[0]}" (${options.what})`;
  if (options.signal?.aborted) throw new ChatAgentError(`${name} was not started: the command was interrupted`);
  const run = await runCaptured(command, {
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    ownGroup: true,
  });
  if (run.error) {
    const why = run.error.code === 'ENOENT' ? 'not found on PATH' : run.error.message;
    throw new ChatAgentError(
      `cannot start ${name}: ${why}; set chatConfig.command to an agent host that has a chat tool`,
    );
  }
  if (run.stopped === 'timeout')
    throw new ChatAgentError(
      `${name} did not finish within ${options.timeoutMs / 1000} s and was stopped (chatConfig.timeoutSeconds)`,
    );
  if (run.stopped === 'interrupted') throw new ChatAgentError(`${name} was stopped: the command was interrupted`);
  if (run.code !== 0) {
    const detail = run.stderr.trim().split('\n').slice(-3).join(' | ');
    const how = run.code === null ? `was killed by ${run.signal}` : `exited with code ${run.code}`;
    throw new ChatAgentError(`${name} ${how}${detail ? `: ${detail}` : ''}`);
  }
  return run.stdout;
}
