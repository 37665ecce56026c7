import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createJetStreamBackend, jetstreamBackendSchema, openJetStream } from 'fed/testing';
import { BackendUnavailableError, InvalidInputError } from 'fed';
import { freePort, skipWithoutNatsServer, startNatsServer } from '../../helpers/nats-server.js';
import { tempDir } from '../../helpers/temp-dir.js';

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

  it('credentials that are no .creds file are refused naming the file or the variable, before connecting', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'broken.creds'), 'not a creds file\n');
    const shape =
      'it holds a user JWT and its nkey seed, each between "-----BEGIN …-----" and "------END …------" lines, as nsc generate creds writes them';
    await expect(
      openJetStream({
        root,
        federationName: 'acme',
        backend: jetstreamConfig(['nats://127.0.0.1:1'], { credentials: { file: 'broken.creds' } }),
      }),
    ).rejects.toThrow(
      new InvalidInputError(
        `backend.credentials.file ${join(root, 'broken.creds')} is not a NATS .creds file (unable to parse credentials): ${shape}; point backend.credentials.file at the .creds file your NATS operator gave you`,
      ),
    );
    await expect(
      openJetStream({
        root,
        federationName: 'acme',
        backend: jetstreamConfig(['nats://127.0.0.1:1'], { credentials: { env: 'FED_TEST_CREDS' } }),
        env: { FED_TEST_CREDS: 'user: fed' },
      }),
    ).rejects.toThrow(
      new InvalidInputError(
        `the environment variable FED_TEST_CREDS (backend.credentials.env) is not a NATS .creds file (unable to parse credentials): ${shape}; export in FED_TEST_CREDS the content of the .creds file your NATS operator gave you`,
      ),
    );
  });

  it('a server URL the NATS client cannot parse names the setting that holds it', async () => {
    // The config schema refuses such a URL; this is what a URL it let through would say.
    const backend = { ...jetstreamConfig(['nats://127.0.0.1:1']), servers: ['nats://127.0.0.1:99999'] };
    const fix =
      'holds a server URL the NATS client cannot parse (nats://127.0.0.1:99999): expected nats://host:port or tls://host:port, with a port from 1 to 65535; fix the URL there';
    await expect(openJetStream({ root: '/tmp', federationName: 'acme', backend, env: {} })).rejects.toThrow(
      new InvalidInputError(`backend.servers in federate.config.json ${fix}`),
    );
    await expect(
      openJetStream({ root: '/tmp', federationName: 'acme', backend, env: { FED_NATS_URL: 'nats://127.0.0.1:99999' } }),
    ).rejects.toThrow(new InvalidInputError(`FED_NATS_URL ${fix}`));
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

    it('a server that answers and refuses the settings says which: the credentials, none given, TLS', async () => {
      const secured = await startNatsServer({ auth: { user: 'fed', password: 'right-pw' } });
      onTestFinished(secured.dispose);
      const where = `nats://127.0.0.1:${secured.port}`;
      const refusal = (servers: string[], extra: object = {}) =>
        openJetStream({
          root: '/tmp',
          federationName: 'acme',
          backend: { ...jetstreamConfig([where], extra), servers },
          env: {},
        }).catch((e: unknown) => e);
      // A user and password come in FED_NATS_URL only (the config file refuses them).
      const wrong = await refusal([`nats://fed:wrong-pw@127.0.0.1:${secured.port}`]);
      expect(wrong).toBeInstanceOf(BackendUnavailableError);
      expect(wrong).toMatchObject({
        code: 'BACKEND_UNAVAILABLE',
        message: `the NATS server at nats://fed:***@127.0.0.1:${secured.port} refused fed's credentials (Authorization Violation); check the user and password in FED_NATS_URL; give credentials this server accepts (and not expired)`,
      });
      expect(await refusal([where])).toMatchObject({
        code: 'BACKEND_UNAVAILABLE',
        message: `the NATS server at ${where} requires credentials, and fed presented none (Authorization Violation); give a user and password in FED_NATS_URL (nats://user:password@host:4222), or a .creds file in backend.credentials of federate.config.json`,
      });

      const plain = await startNatsServer();
      onTestFinished(plain.dispose);
      expect(await refusal([plain.url], { tls: {} })).toMatchObject({
        code: 'BACKEND_UNAVAILABLE',
        message: `the NATS server at ${plain.url} does not offer TLS, but fed connects with TLS (server does not support 'tls'); remove backend.tls from federate.config.json to connect without TLS, or point backend.servers in federate.config.json at a server with TLS enabled`,
      });
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
