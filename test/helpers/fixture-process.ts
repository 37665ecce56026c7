import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Run a fixture script from `test/fixtures/` as a real child process, for tests where the point is crash
 * safety or concurrency between processes. Fixtures are plain `.mjs` on the built library in `dist/`
 * (`npm test` builds first): through tsx every start cost ~1 s of CPU, and on a loaded 2-core machine a
 * consumer started that way missed a 20 s start deadline.
 */
export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));
const BUILT_LIBRARY = fileURLToPath(new URL('../../dist/src/index.js', import.meta.url));

export interface FixtureProcess {
  child: ChildProcess;
  /** Resolves when the process has exited, with its code (or signal) and output. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

export function startFixture(name: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): FixtureProcess {
  if (!existsSync(BUILT_LIBRARY))
    throw new Error(`fixtures run the built library (${BUILT_LIBRARY}): run npm run build first`);
  const child = spawn(process.execPath, [join(FIXTURES_DIR, name), ...args], {
    env: { ...process.env, FED_TELEMETRY_ENABLED: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    },
  );
  return { child, done };
}

/** Wait until `predicate` holds, polling; throws after `timeoutMs`. */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Whether a process of that id exists (signal 0 checks without sending anything); 0 or less names none. */
export function isAlive(pid: number): boolean {
  if (!isProcessId(pid)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `pid` may name a process a test started. kill(2) reads 0 as the caller's own process group, -1 as
 * every process there is and 1 is init: a test that signalled one of those — a pid file read before its
 * writer wrote it is "", which Number() makes 0 — would kill the test runner and the CI run around it.
 */
function isProcessId(pid: number): boolean {
  return Number.isInteger(pid) && pid > 1;
}

/** The pid a process wrote to `file`; throws, naming the file and what it holds, when that is not one. */
export function readPid(file: string): number {
  const text = readFileSync(file, 'utf8');
  const pid = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || !isProcessId(pid))
    throw new Error(`${file} holds ${JSON.stringify(text)}, not a pid`);
  return pid;
}

/**
 * Sends `signal` to each of `targets` — a process by its pid, a process group as minus its leader's pid —
 * skipping one gone already. A target that can name no process or group a test started (see isProcessId)
 * throws instead of being signalled.
 */
export function killEach(targets: readonly number[], signal: NodeJS.Signals = 'SIGKILL'): void {
  const signallable = (target: number) => isProcessId(Math.abs(target));
  for (const target of targets.filter(signallable)) {
    try {
      process.kill(target, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
  const refused = targets.filter((target) => !signallable(target));
  if (refused.length) throw new Error(`refused to signal ${refused.join(', ')}: no process a test started`);
}
