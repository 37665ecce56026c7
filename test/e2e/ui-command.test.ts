import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { BoardView } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { startFedUi } from '../helpers/fed-ui.js';
import { tempDir } from '../helpers/temp-dir.js';

/** `fed ui` as a person runs it: the built CLI, serving the built page (dist/ui/) until Ctrl-C. */
describe('fed ui', () => {
  it('prints the URL first, serves the dashboard with its token, and exits 0 on SIGINT', async () => {
    const root = tempDir();
    expect((await runFed(['init', '--root', root])).code).toBe(0);
    expect((await runFed(['--root', root, 'team', 'onboard', 'docs'])).code).toBe(0);
    const ui = await startFedUi(root);
    onTestFinished(() => ui.stop());
    expect(ui.url, ui.output()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);

    expect((await fetch(`${ui.origin}/api/board`)).status).toBe(401);
    const exchanged = await fetch(ui.url, { redirect: 'manual' });
    expect(exchanged.status).toBe(303);
    const cookie = exchanged.headers.get('set-cookie')!.split(';')[0]!;
    const shell = await fetch(`${ui.origin}/`, { headers: { cookie } });
    expect(shell.status).toBe(200);
    expect(shell.headers.get('content-type')).toMatch(/^text\/html/);
    const board = (await (await fetch(`${ui.origin}/api/board`, { headers: { cookie } })).json()) as BoardView;
    expect(board.teams.map((team) => team.id)).toEqual(['docs']);

    const started = Date.now();
    ui.child.kill('SIGINT');
    const [code] = (await once(ui.child, 'exit')) as [number | null];
    expect(code, ui.output()).toBe(0);
    // Promptly, not at once: a loaded machine may take seconds to start and stop a process.
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 30_000);

  it('--open without a system opener warns and serves all the same', async () => {
    const root = tempDir();
    expect((await runFed(['init', '--root', root])).code).toBe(0);
    // No PATH: no xdg-open (nor open) to be found.
    const ui = await startFedUi(root, { args: ['--open'], env: { PATH: tempDir() } });
    onTestFinished(() => ui.stop());
    await expect.poll(() => ui.output()).toMatch(/warning: cannot open a browser .*open the URL yourself/);
    expect((await fetch(ui.url, { redirect: 'manual' })).status).toBe(303);
    ui.child.kill('SIGTERM');
    expect(((await once(ui.child, 'exit')) as [number | null])[0]).toBe(0);
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
