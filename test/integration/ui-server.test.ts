import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BoardView, NeedsYouView } from '../../src/apps/ui/api-types.js';
import { startUiServer, type UiServer } from '../../src/apps/ui/server/ui-server.js';
import { openFederation } from '../../src/engine/context.js';
import { signalFederation } from '../helpers/signal-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A tiny page in place of the bundle wt-ui-client builds into dist/ui/. */
function tinyAssets(): string {
  const dir = tempDir('fed-ui-assets-');
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>fed</title><script src="/assets/app.js"></script>');
  mkdirSync(join(dir, 'diagrams'));
  writeFileSync(join(dir, 'app.js'), 'console.log("fed")');
  writeFileSync(join(dir, 'diagrams', 'coding.json'), '{}');
  return dir;
}

/** A GET through node:http: fetch will not send a Host of the caller's choosing. */
function rawGet(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    })
      .on('error', reject)
      .end();
  });
}

const servers: UiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(teams: readonly string[] = ['docs', 'api']) {
  const federation = await signalFederation(teams);
  const fed = openFederation(federation.root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
  const server = await startUiServer(fed, { assetsDir: tinyAssets() });
  servers.push(server);
  const origin = new URL(server.url).origin;
  const cookie = `fed_ui=${server.token}`;
  /** A request as the page makes it: the session cookie, and the page's Origin on a POST. */
  const page = (path: string, init: RequestInit = {}) =>
    fetch(`${origin}${path}`, {
      redirect: 'manual',
      ...init,
      headers: { cookie, ...(init.method === 'POST' ? { origin } : {}), ...(init.headers as object) },
    });
  return { federation, fed, server, origin, page };
}

describe('fed ui: the guard', () => {
  it('refuses a request without the token (401) and says to open the printed URL', async () => {
    const { origin } = await serve();
    const response = await fetch(`${origin}/api/board`);
    expect(response.status).toBe(401);
    expect(await response.text()).toMatch(/open the URL `fed ui` printed/);
    expect((await fetch(`${origin}/`)).status).toBe(401);
  });

  it('exchanges the token for an HttpOnly SameSite=Strict cookie and redirects without it', async () => {
    const { server, origin } = await serve();
    const response = await fetch(server.url, { redirect: 'manual' });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/');
    expect(response.headers.get('set-cookie')).toBe(`fed_ui=${server.token}; HttpOnly; SameSite=Strict; Path=/`);
    const wrong = await fetch(`${origin}/team/docs?token=nope`, { redirect: 'manual' });
    expect(wrong.status).toBe(401);
    const shell = await fetch(`${origin}/team/docs`, { headers: { cookie: `fed_ui=${server.token}` } });
    expect(shell.status).toBe(200);
    expect(await shell.text()).toContain('<title>fed</title>');
  });

  it('answers only to its own Host (421) and Origin (403), and only GET, HEAD and POST (405)', async () => {
    const { page, server, origin } = await serve();
    const cookie = `fed_ui=${server.token}`;
    expect(await rawGet(`${origin}/api/board`, { cookie, host: 'evil.example:80' })).toBe(421);
    expect(await rawGet(`${server.url}`, { host: 'rebound.example' })).toBe(421);
    expect((await page('/api/board', { headers: { origin: 'http://evil.example' } })).status).toBe(403);
    expect((await page('/api/board', { method: 'DELETE' })).status).toBe(405);
    const port = new URL(server.url).port;
    expect(await rawGet(`${origin}/api/board`, { cookie, host: `localhost:${port}` })).toBe(200);
  });

  it('takes a POST only with the cookie and the Origin of the page, or a Bearer token', async () => {
    const { origin, server } = await serve();
    const body = JSON.stringify({ action: 'pause', team: 'docs' });
    const withoutOrigin = await fetch(`${origin}/api/actions`, {
      method: 'POST',
      body,
      headers: { cookie: `fed_ui=${server.token}`, 'content-type': 'application/json' },
    });
    expect(withoutOrigin.status).toBe(403);
    const bearer = await fetch(`${origin}/api/board`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(bearer.status).toBe(200);
    const wrongBearer = await fetch(`${origin}/api/board`, { headers: { authorization: 'Bearer nope' } });
    expect(wrongBearer.status).toBe(401);
  });

  it('sends a strict CSP and the other security headers on every response', async () => {
    const { page, origin } = await serve();
    for (const response of [await page('/'), await page('/api/board'), await fetch(`${origin}/api/board`)]) {
      expect(response.headers.get('content-security-policy')).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      );
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expect((await page('/api/board')).headers.get('cache-control')).toBe('no-store');
  });

  it('serves the page files under /assets/, nothing outside them', async () => {
    const { page } = await serve();
    const script = await page('/assets/app.js');
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toBe('console.log("fed")');
    expect((await page('/assets/diagrams/coding.json')).status).toBe(200);
    expect((await page('/assets/..%2f..%2fetc%2fpasswd')).status).toBe(404);
    expect((await page('/assets/missing.js')).status).toBe(404);
  });

  it('refuses to start without the built page, saying how to build it', async () => {
    const federation = await signalFederation([]);
    await expect(
      startUiServer(openFederation(federation.root), { assetsDir: tempDir('fed-ui-empty-') }),
    ).rejects.toMatchObject({ code: 'UI_NOT_BUILT', message: expect.stringMatching(/npm run build/) });
  });
});

describe('fed ui: the views', () => {
  it('/api/board: every team as a card', async () => {
    const { page } = await serve();
    const board = (await (await page('/api/board')).json()) as BoardView;
    expect(board.teams.map((card) => card.id)).toEqual(['api', 'docs']);
    expect(board.teams[0]).toMatchObject({
      domain: 'api',
      status: 'active',
      healthy: expect.any(Boolean),
      inbox: { total: 0, unacknowledged: 0 },
      actions: ['pause'],
      lastRun: null,
      costUsd: null,
    });
    expect(board.totals).toMatchObject({ teams: 2 });
    expect(board.backend).toBeTypeOf('string');
  });

  it('/api/needs-you: the queue, oldest first, with its problems', async () => {
    const { page } = await serve();
    const view = (await (await page('/api/needs-you')).json()) as NeedsYouView;
    expect(view).toMatchObject({ items: [], problems: expect.any(Array) });
  });
});
