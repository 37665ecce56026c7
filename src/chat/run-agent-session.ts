import { spawn } from 'node:child_process';
import { FedError } from '../errors.js';

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

const MAX_STDOUT_BYTES = 4 * 1024 * 1024;
const STDERR_TAIL_BYTES = 2_000;

/** A session that did not end well: its command could not start, failed, or ran out of time. */
export class ChatAgentError extends FedError {
  constructor(message: string) {
    super('CHAT_AGENT_FAILED', message, { refusal: false });
  }
}

/**
 * Run one headless agent-host session and return its standard output. Started from an argument array
 * (never a shell) in its own process group, so a timeout or an interruption stops the agent and whatever
 * it started — a tool process left holding the output pipe cannot keep the session alive.
 */
export async function runAgentSession(command: readonly string[], options: AgentSessionOptions): Promise<string> {
  const [file, ...args] = command;
  const name = `the chat agent "${file}" (${options.what})`;
  if (options.signal?.aborted) throw new ChatAgentError(`${name} was not started: the command was interrupted`);
  const child = spawn(file!, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    if (stdout.length < MAX_STDOUT_BYTES) stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL_BYTES)));

  let stopped: 'timeout' | 'interrupted' | undefined;
  const stop = (why: 'timeout' | 'interrupted') => {
    stopped ??= why;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = () => stop('interrupted');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const exit = await new Promise<{ code: number | null; signal?: NodeJS.Signals | null; error?: NodeJS.ErrnoException }>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, error }));
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', onAbort);

  if (exit.error) {
    const why = exit.error.code === 'ENOENT' ? 'not found on PATH' : exit.error.message;
    throw new ChatAgentError(`cannot start ${name}: ${why}; set chatConfig.command to an agent host that has a chat tool`);
  }
  if (stopped === 'timeout') throw new ChatAgentError(`${name} did not finish within ${options.timeoutMs / 1000} s and was stopped (chatConfig.timeoutSeconds)`);
  if (stopped === 'interrupted') throw new ChatAgentError(`${name} was stopped: the command was interrupted`);
  if (exit.code !== 0) {
    const detail = stderr.trim().split('\n').slice(-3).join(' | ');
    const how = exit.code === null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    throw new ChatAgentError(`${name} ${how}${detail ? `: ${detail}` : ''}`);
  }
  return stdout;
}
