import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startFedUi } from '../helpers/fed-ui.js';
import { cliFederation } from './dashboard.js';

/**
 * `fed ui`'s guard, over plain HTTP (no browser needed): the token is required, a foreign Host is
 * refused (DNS rebinding), a foreign Origin is refused (a cross-site page), and the token's cookie is one
 * no script can read nor another site send.
 */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('the dashboard turns away what is not its own page', () => {
  it('401 without the token, 421 for a foreign Host, 403 for a foreign Origin; the cookie is HttpOnly and SameSite=Strict', async () => {
    const { root } = await cliFederation(['docs']);
    const ui = await startFedUi(root);
    try {
      expect(ui.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/);
      const board = `${ui.origin}/api/board`;
      const bearer = { Authorization: `Bearer ${ui.token}` };

      expect((await send(board)).status).toBe(401);
      expect((await send(`${ui.origin}/`)).status).toBe(401);
      expect((await send(board, { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await send(board, { headers: { Cookie: `fed_ui_${new URL(ui.origin).port}=wrong` } })).status).toBe(401);
      const ok = await send(board, { headers: bearer });
      expect(ok.status).toBe(200);
      expect((JSON.parse(ok.body) as { teams: { id: string }[] }).teams.map((t) => t.id)).toEqual(['docs']);
      expect(ok.headers['content-security-policy']).toContain("default-src 'none'");

      // DNS rebinding: a name that resolves to 127.0.0.1 still names another site.
      const port = new URL(ui.origin).port;
      expect((await send(board, { headers: { ...bearer, Host: `evil.example:${port}` } })).status).toBe(421);
      expect((await send(ui.url, { headers: { Host: `evil.example:${port}` } })).status).toBe(421);

      // A page of another site: its Origin is refused, for reads and for actions.
      const foreign = { Origin: 'http://evil.example' };
      expect((await send(board, { headers: { ...bearer, ...foreign } })).status).toBe(403);
      const pause = JSON.stringify({ action: 'pause', team: 'docs' });
      const json = { 'Content-Type': 'application/json' };
      expect(
        (
          await send(`${ui.origin}/api/actions`, {
            method: 'POST',
            headers: { ...bearer, ...json, ...foreign },
            body: pause,
          })
        ).status,
      ).toBe(403);

      // The token is exchanged for the cookie; a POST with the cookie needs this page's Origin.
      const signIn = await send(ui.url);
      expect(signIn.status).toBeGreaterThanOrEqual(300);
      expect(signIn.status).toBeLessThan(400);
      const setCookie = String(signIn.headers['set-cookie']);
      expect(setCookie).toMatch(/HttpOnly/i);
      expect(setCookie).toMatch(/SameSite=Strict/i);
      const cookie = setCookie.split(';')[0]!;
      expect((await send(board, { headers: { Cookie: cookie } })).status).toBe(200);
      const post = (headers: Record<string, string>) =>
        send(`${ui.origin}/api/actions`, {
          method: 'POST',
          headers: { Cookie: cookie, ...json, ...headers },
          body: pause,
        });
      expect((await post({})).status).toBe(403);
      expect((await post(foreign)).status).toBe(403);
      expect((await post({ Origin: ui.origin })).status).toBe(200);
    } finally {
      await ui.stop();
    }
  });
});
