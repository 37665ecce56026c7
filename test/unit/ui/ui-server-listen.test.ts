import { createServer } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { initFederation, openFederation } from 'fed';
import { listenUiServer, startUiServer } from '../../../src/apps/ui/server/ui-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { tinyAssets } from '../../helpers/ui-server-fixtures.js';

/** Whether `port` of 127.0.0.1 can be listened on now (nothing holds it). */
async function free(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** `fed serve --ui` listens first, then serves once the server runs: listenUiServer, then start. */
describe('listenUiServer', () => {
  it('holds the port before it serves; a request meanwhile is answered once it serves', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const listener = await listenUiServer({ assetsDir: tinyAssets() });
    onTestFinished(() => listener.close());
    expect(await free(listener.port)).toBe(false);
    const early = fetch(`http://127.0.0.1:${listener.port}/healthz`);
    const server = listener.start(openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } }));
    expect(server.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${listener.port}/\\?token=`));
    expect(await (await early).text()).toBe('ok\n');
    expect(() => listener.start(openFederation(root))).toThrow(/served already/);
    await server.close();
    expect(await free(listener.port)).toBe(true);
  });

  it('startUiServer (fed ui) names the port it listens on in its URL, the free one picked for port 0', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    const server = await startUiServer(fed, { port: 0, host: '127.0.0.1', assetsDir: tinyAssets() });
    onTestFinished(() => server.close());
    const url = new URL(server.url);
    expect([url.hostname, url.port]).toEqual(['127.0.0.1', expect.stringMatching(/^[1-9]\d*$/)]);
    expect(await (await fetch(new URL('/healthz', url))).text()).toBe('ok\n');
  });

  it('closed before it serves: lets go of the port, and a request that waited ends', async () => {
    const listener = await listenUiServer({ assetsDir: tinyAssets() });
    const early = fetch(`http://127.0.0.1:${listener.port}/healthz`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await listener.close();
    await expect(early).rejects.toThrow();
    expect(await free(listener.port)).toBe(true);
  });

  it('refuses a port in use, naming the option and what to pass instead', async () => {
    const holder = await listenUiServer({ assetsDir: tinyAssets() });
    onTestFinished(() => holder.close());
    await expect(listenUiServer({ assetsDir: tinyAssets(), port: holder.port })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: `--port ${holder.port}: the port is in use (EADDRINUSE); pass another --port, or 0 for a free one`,
    });
  });
});
