import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { BoardView } from '../../src/apps/ui/api-types.js';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/** `fed ui` as a person runs it: the built CLI, serving the built page (dist/ui/) until Ctrl-C. */
describe('fed ui', () => {
  it('prints the URL first, serves the dashboard with its token, and exits 0 on SIGINT', async () => {
    const root = tempDir();
    expect((await runFed(['init', '--root', root])).code).toBe(0);
    expect((await runFed(['--root', root, 'team', 'onboard', 'docs'])).code).toBe(0);
    const { FED_ROOT: _root, FED_TEAM: _team, ...env } = process.env;
    const child = spawn(process.execPath, [FED_BIN, '--root', root, 'ui', '--port', '0'], {
      env: { ...env, FED_TELEMETRY_ENABLED: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    expect(line, stderr).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    const url = new URL(line);

    expect((await fetch(`${url.origin}/api/board`)).status).toBe(401);
    const exchanged = await fetch(line, { redirect: 'manual' });
    expect(exchanged.status).toBe(303);
    const cookie = exchanged.headers.get('set-cookie')!.split(';')[0]!;
    const shell = await fetch(`${url.origin}/`, { headers: { cookie } });
    expect(shell.status).toBe(200);
    expect(shell.headers.get('content-type')).toMatch(/^text\/html/);
    const board = (await (await fetch(`${url.origin}/api/board`, { headers: { cookie } })).json()) as BoardView;
    expect(board.teams.map((team) => team.id)).toEqual(['docs']);

    const started = Date.now();
    child.kill('SIGINT');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code, stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(3_000);
  }, 30_000);

  it('--open without a system opener warns and serves all the same', async () => {
    const root = tempDir();
    expect((await runFed(['init', '--root', root])).code).toBe(0);
    const { FED_ROOT: _root, FED_TEAM: _team, ...env } = process.env;
    const child = spawn(process.execPath, [FED_BIN, '--root', root, 'ui', '--open'], {
      // No PATH: no xdg-open (nor open) to be found.
      env: { ...env, PATH: tempDir(), FED_TELEMETRY_ENABLED: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    expect(line).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    await expect.poll(() => stderr).toMatch(/warning: cannot open a browser .*open the URL yourself/);
    expect((await fetch(line, { redirect: 'manual' })).status).toBe(303);
    child.kill('SIGTERM');
    expect(((await once(child, 'exit')) as [number | null])[0]).toBe(0);
  }, 30_000);

  it('refuses a wildcard --host (exit 2), naming what to pass instead', async () => {
    const root = tempDir();
    expect((await runFed(['init', '--root', root])).code).toBe(0);
    const result = await runFed(['--root', root, 'ui', '--host', '0.0.0.0']);
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('pass one address instead') });
  });

  it('refuses a port that is not one', async () => {
    const result = await runFed(['ui', '--port', 'eighty']);
    expect(result).toMatchObject({ code: 2, stderr: expect.stringContaining('expected a port number') });
  });
});
