import { describe, expect, it } from 'vitest';
import { startServe } from '../helpers/fed-serve.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { serveHost } from '../helpers/serve-host.js';
import { useNatsServer } from '../helpers/use-nats-server.js';

const SUITE = 'fed serve stopped while its nats-server is down';

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('stops within seconds — never waits for the server to come back — the host left to be found lost', async () => {
    const env = { FED_NATS_URL: server().url };
    const root = await serveHost(env, 'outage', 'solo', fakeAgent('complete'), {
      heartbeat: '500ms',
      hostLostAfter: '2s',
    });
    const serve = startServe(root, [], env);
    await serve.waitForEvent('started');
    await server().kill();
    // What it writes now (a heartbeat, the record saying it stopped) is held until the server is back.
    const asked = Date.now();
    serve.child.kill('SIGTERM');
    const code = await serve.exited;
    const tookMs = Date.now() - asked;
    expect(code, serve.stderr()).toBe(0);
    expect(serve.events.some((e) => e.kind === 'stopped')).toBe(true);
    // Bounded by fed's own waits (a few seconds each), not by the outage, which lasts past the test.
    expect(tookMs).toBeLessThan(30_000);
  }, 120_000);
});
