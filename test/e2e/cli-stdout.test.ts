import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, rmSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FED_BIN } from '../helpers/fed-cli.js';
import { skipWithout } from '../helpers/loud-skip.js';
import { manyTeamsFederation } from '../helpers/big-federations.js';

/**
 * `fed team list --json` of a federation with enough teams to fill a pipe (64 KiB) several times over,
 * removed when the test ends (10 MB each, in the system's temp folder).
 */
const bigList = async () => {
  const { root } = await manyTeamsFederation(400, 0);
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  return {
    args: [FED_BIN, 'team', 'list', '--json'],
    env: { ...process.env, FED_ROOT: root, FED_TELEMETRY_ENABLED: 'false' },
  };
};

describe("fed's standard output, written to the descriptor", () => {
  it('a reader that goes away (`| head -c 10`) ends the output quietly: exit 0, nothing on stderr', async () => {
    const { args, env } = await bigList();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let first = '';
    child.stdout.once('data', (chunk: Buffer) => {
      first = chunk.toString().slice(0, 10);
      child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr, first }).toEqual({ code: 0, stderr: '', first: expect.stringMatching(/^\[/) });
  });

  it('a slow reader gets all of it, in order', async () => {
    const { args, env } = await bigList();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // Read no more for a moment: fed's writes wait for the pipe to drain.
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), 2);
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const teams = JSON.parse(Buffer.concat(chunks).toString()) as unknown[];
    expect(teams).toHaveLength(400);
  });

  const FULL_DISK = 'a full disk behind a redirect is an error saying so, exit 1';
  it.skipIf(skipWithout(FULL_DISK, existsSync('/dev/full') ? undefined : '/dev/full is missing'))(
    FULL_DISK,
    async () => {
      const { args, env } = await bigList();
      const full = openSync('/dev/full', 'w');
      const child = spawn(process.execPath, args, { env, stdio: ['ignore', full, 'pipe'] });
      closeSync(full);
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
      expect(stderr).toContain('the disk is full (write) [ENOSPC]');
    },
  );
});
