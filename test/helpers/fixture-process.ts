import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
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

/** Whether a process of that id exists (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
