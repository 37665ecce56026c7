import { spawn } from 'node:child_process';

/**
 * One child process run to its end with its output captured, started from an argument array (never a
 * shell). With `ownGroup` it runs in its own process group, so a timeout or an abort stops it and
 * everything it started — a tool it left holding the output pipe cannot keep the run alive; without, it
 * stays in the caller's group and goes when the caller's group is stopped. Output is bounded: stdout up
 * to a cap, stderr as its last bytes (what explains a failure).
 */
export interface RunCapturedOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Kill it after this long (default: no limit). */
  timeoutMs?: number;
  /** Kill it when this aborts. */
  signal?: AbortSignal;
  /** Run it in a process group of its own (see above). */
  ownGroup?: boolean;
  /** stdout kept, at most (default 4 MiB); stderr's last bytes kept (default 2 000). */
  maxStdoutBytes?: number;
  stderrTailBytes?: number;
  /** Written to its stdin, which is then closed (default: nothing, it reads end of file). A child that does not read it is no error. */
  input?: string;
}

export interface CapturedRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** It could not be started (ENOENT: not found). */
  error?: NodeJS.ErrnoException;
  /** Why fed stopped it, when it did. */
  stopped?: 'timeout' | 'interrupted';
}

export async function runCaptured(command: readonly string[], options: RunCapturedOptions): Promise<CapturedRun> {
  const [file, ...args] = command;
  const maxStdout = options.maxStdoutBytes ?? 4 * 1024 * 1024;
  const stderrTail = options.stderrTailBytes ?? 2_000;
  const child = spawn(file!, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: options.ownGroup ?? false,
  });
  // EPIPE when it exits without reading: what it did is told by its exit, not by the pipe.
  child.stdin.on('error', () => {});
  child.stdin.end(options.input ?? '');
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    if (stdout.length < maxStdout) stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-stderrTail)));

  let stopped: CapturedRun['stopped'];
  const stop = (why: NonNullable<CapturedRun['stopped']>) => {
    stopped ??= why;
    try {
      if (options.ownGroup) process.kill(-child.pid!, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = () => stop('interrupted');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const exit = await new Promise<{
      code: number | null;
      signal: NodeJS.Signals | null;
      error?: NodeJS.ErrnoException;
    }>((resolve) => {
      child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, signal: null, error }));
      child.once('close', (code, signal) => resolve({ code, signal }));
    });
    return { ...exit, stdout, stderr, ...(stopped ? { stopped } : {}) };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
