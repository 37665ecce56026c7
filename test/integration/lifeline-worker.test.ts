import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { processIsAlive } from 'fed/testing';
import { FIXTURES_DIR, killEach, waitFor } from '../helpers/fixture-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The lifeline as fed-agent watches it (src/infra/process/lifeline-worker.ts), with no watchdog over it:
 * the test is the launcher, holding the other end of the pipe. The fixture (test/fixtures/lifeline-busy.mjs,
 * on the built library: `npm run build` first) is busy in one long synchronous call, as fed-agent's scan
 * is, and has a process in its group that ignores SIGTERM.
 */
describe('a process that ends with its launcher', () => {
  it('ends mid synchronous work when the lifeline closes, and what ignores SIGTERM in its group is killed after the grace period', async () => {
    const marker = join(tempDir(), 'finished');
    const child = spawn(process.execPath, [join(FIXTURES_DIR, 'lifeline-busy.mjs'), marker, '300'], {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, 'exit');
    // Its first line, or its early end said (a fixture that fails to start must not wait out the timeout).
    const [line] = (await Promise.race([
      once(createInterface({ input: child.stdout! }), 'line'),
      exited.then(([code]) => Promise.reject(new Error(`lifeline-busy exited ${code} before starting: ${stderr}`))),
    ])) as [string];
    const { left } = JSON.parse(line) as { left: number };
    onTestFinished(() => killEach([-child.pid!, left]));
    // The launcher is gone: its end of the lifeline closes, as the kernel closes it when it is killed.
    (child.stdio[3] as NodeJS.ReadableStream & { destroy(): void }).destroy();
    const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGTERM' });
    expect(existsSync(marker)).toBe(false);
    expect(stderr).toContain('lifeline-busy: the launcher is gone');
    await waitFor(() => !processIsAlive(left), 15_000, 'the process ignoring SIGTERM to be killed');
  }, 60_000);
});
