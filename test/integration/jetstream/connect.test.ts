import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createJetStreamBackend, jetstreamBackendSchema, openJetStream } from 'fed/testing';
import { BackendUnavailableError, InvalidInputError } from 'fed';
import { freePort, skipWithoutNatsServer, startNatsServer } from '../../helpers/nats-server.js';

const jetstreamConfig = (servers: string[], extra: object = {}) =>
  jetstreamBackendSchema.parse({ type: 'jetstream', servers, ...extra });

describe('opening a JetStream backend: refusals that need no server', () => {
  it('an unreachable server is a clear error naming the URL and how to start one', async () => {
    const port = await freePort();
    const error = await openJetStream({
      root: '/tmp',
      federationName: 'acme',
      backend: jetstreamConfig([`nats://127.0.0.1:${port}`]),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendUnavailableError);
    expect((error as BackendUnavailableError).code).toBe('BACKEND_UNAVAILABLE');
    expect((error as Error).message).toBe(
      `cannot reach the NATS server at nats://127.0.0.1:${port} (connection refused); start one with JetStream enabled (nats-server -js; Debian: apt-get install nats-server), or point FED_NATS_URL or backend.servers in federate.config.json at a running one`,
    );
  });

  it('the backend opens at once and reports an unreachable server on its first operation, naming the URL', async () => {
    const port = await freePort();
    const backend = createJetStreamBackend({
      root: '/tmp',
      federationName: 'acme',
      backend: jetstreamConfig([`nats://127.0.0.1:${port}`]),
    });
    await expect(backend.registry.read()).rejects.toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      message: expect.stringContaining(`nats://127.0.0.1:${port}`),
    });
    await backend.close();
    expect(() =>
      createJetStreamBackend({
        root: '/tmp',
        federationName: undefined,
        backend: jetstreamConfig(['nats://127.0.0.1:1']),
      }),
    ).toThrow(InvalidInputError);
  });

  it('needs a federation name that can name streams, and credentials that are there', async () => {
    await expect(
      openJetStream({ root: '/tmp', federationName: undefined, backend: jetstreamConfig(['nats://127.0.0.1:1']) }),
    ).rejects.toThrow(/needs the federation's name \(federationName in federate.config.json\)/);
    await expect(
      openJetStream({ root: '/tmp', federationName: 'my fed.x', backend: jetstreamConfig(['nats://127.0.0.1:1']) }),
    ).rejects.toThrow(InvalidInputError);
    await expect(
      openJetStream({
        root: '/tmp',
        federationName: 'acme',
        backend: jetstreamConfig(['nats://127.0.0.1:1'], { credentials: { env: 'FED_TEST_NO_SUCH_CREDS' } }),
        env: {},
      }),
    ).rejects.toThrow(
      'backend.credentials.env names FED_TEST_NO_SUCH_CREDS, but that environment variable is not set; export the content of your .creds file in it',
    );
    await expect(
      openJetStream({
        root: '/tmp',
        federationName: 'acme',
        backend: jetstreamConfig(['nats://127.0.0.1:1'], { credentials: { file: 'missing.creds' } }),
      }),
    ).rejects.toThrow(
      "backend.credentials.file /tmp/missing.creds cannot be read (ENOENT); fix the path or the file's permissions",
    );
  });
});

describe.skipIf(skipWithoutNatsServer('opening a JetStream backend against a real server'))(
  'opening a JetStream backend against a real server',
  () => {
    it('connects and reports the server version', async () => {
      const server = await startNatsServer();
      onTestFinished(server.dispose);
      const session = await openJetStream({
        root: '/tmp',
        federationName: 'acme',
        backend: jetstreamConfig([server.url]),
      });
      onTestFinished(session.close);
      expect(session.serverVersion).toMatch(/^\d+\.\d+\.\d+/);
      expect(session.names.signalStream).toBe('FED_acme_SIGNALS');
    });

    it('a server without JetStream is refused, saying how to enable it', async () => {
      const port = await freePort();
      const plain = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
      onTestFinished(() => void plain.kill('SIGKILL'));
      const url = `nats://127.0.0.1:${port}`;
      await expect
        .poll(
          async () =>
            await openJetStream({ root: '/tmp', federationName: 'acme', backend: jetstreamConfig([url]) }).catch(
              (e: Error) => e.message,
            ),
          { timeout: 20_000 },
        )
        .toBe(
          `the NATS server at ${url} does not have JetStream enabled; restart it with -js (or "jetstream {}" in its config)`,
        );
    });
  },
);
