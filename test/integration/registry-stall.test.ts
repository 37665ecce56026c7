import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation } from 'fed';
import { readRegistry } from 'fed/testing';
import { FED_BIN } from '../helpers/fed-cli.js';
import { FIXTURES_DIR, waitFor } from '../helpers/fixture-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Longer than the age after which the lock used to be taken over from any holder (5 s). */
const STALL_MS = 6_500;

function start(args: string[]) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, FED_TELEMETRY_ENABLED: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let exited = false;
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      exited = true;
      resolve({ code, stdout, stderr });
    }),
  );
  return { child, done, stdout: () => stdout, exited: () => exited };
}

describe('a slow registry lock holder (issue 19 item 1)', () => {
  it('keeps its lock while SIGSTOPped past the old stale age, and no onboarding is lost', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    const go = join(root, 'go');
    const stalled = start([join(FIXTURES_DIR, 'stall-in-registry-lock.mjs'), root, 'stalled', go]);
    try {
      await waitFor(() => stalled.stdout().includes('in-lock'), 20_000, 'the writer to hold the commit lock');
      stalled.child.kill('SIGSTOP');
      writeFileSync(go, '');
      const onboard = start([FED_BIN, '--root', root, 'team', 'onboard', 'late']);
      // The point of the test is time: a live holder stalled longer than any age limit keeps its lock.
      const stopUntil = Date.now() + STALL_MS;
      await waitFor(() => onboard.exited() || Date.now() > stopUntil, STALL_MS + 5_000, 'the stall');
      expect(onboard.exited(), 'the onboarding took the lock of a live, stopped holder').toBe(false);
      stalled.child.kill('SIGCONT');
      const [first, second] = await Promise.all([stalled.done, onboard.done]);
      expect(first.code, first.stdout).toBe(0);
      expect(second.code, second.stderr).toBe(0);
      const registry = readRegistry(root);
      expect(registry.teams.map((t) => t.domain).sort()).toEqual(['late', 'stalled']);
      expect(registry.lockVersion).toBe(2);
    } finally {
      stalled.child.kill('SIGCONT');
      stalled.child.kill('SIGKILL');
    }
  }, 40_000);
});
