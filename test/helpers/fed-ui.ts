import { spawn, type ChildProcess } from 'node:child_process';
import { FED_BIN } from './fed-cli.js';

/**
 * `fed ui` from the built CLI, as a person starts it: `fed --root <root> ui --port 0`, its URL read from the
 * first line of its output, stopped with SIGINT (Ctrl-C). No vitest import: the benchmark uses it too.
 */
export interface Serving {
  /** The first line it printed: the URL to open. */
  url: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  child: ChildProcess;
  /** What it printed so far (stdout and stderr), for failure messages. */
  output(): string;
  /** Ctrl-C, SIGKILL after 5 s; resolves when the process is gone. */
  stop(): Promise<void>;
}

export interface FedUi extends Serving {
  /** `127.0.0.1:<port>` */
  host: string;
  /** The token of the first line's `?token=`. */
  token: string;
}

const START_TIMEOUT_MS = 20_000;

/** Every server this process started, so none outlives it when a test fails mid-way. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startFedUi(
  root: string,
  options: { args?: readonly string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<FedUi> {
  // Tests choose the federation explicitly; an inherited FED_ROOT/FED_TEAM must not leak in.
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  const served = await startServing([FED_BIN, '--root', root, 'ui', '--port', '0', ...(options.args ?? [])], {
    cwd: root,
    env: { ...inherited, NO_COLOR: '1', FED_TELEMETRY_ENABLED: 'false', ...options.env },
  });
  const token = new URL(served.url).searchParams.get('token');
  if (!token) {
    await served.stop();
    throw new Error(`fed ui's first line has no token: ${served.url}`);
  }
  return { ...served, host: new URL(served.url).host, token };
}

/** `node <args>` that serves HTTP until stopped and prints its URL as its first line (fed ui, the benchmark's bare server). */
export async function startServing(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Serving> {
  const child = spawn(process.execPath, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  const exited = new Promise<void>((resolve) =>
    child.on('close', () => {
      running.delete(child);
      resolve();
    }),
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const firstLine = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${args.join(' ')} printed no URL within ${START_TIMEOUT_MS} ms:\n${output}`)),
      START_TIMEOUT_MS,
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
      stdout += chunk.toString();
      const newline = stdout.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(stdout.slice(0, newline).trim());
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    child.on('error', reject);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited (code ${child.exitCode}) before printing its URL:\n${output}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  if (!URL.canParse(firstLine)) {
    await stop();
    throw new Error(`${args.join(' ')}: the first line is not a URL: ${firstLine}`);
  }
  return { url: firstLine, origin: new URL(firstLine).origin, child, output: () => output, stop };
}
