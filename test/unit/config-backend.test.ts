import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  backendConfigFiles,
  loadFederationConfig as loadConfig,
  missingConfigFiles,
  redactedConfig,
  redactUrl,
  redactUrlsIn,
  validateConfig,
} from 'fed/testing';
import { ConfigValidationError } from 'fed';
import { tempDir } from '../helpers/temp-dir.js';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigValidationError);
    return (error as ConfigValidationError).problems.map((p) => `${p.path}: ${p.message}`);
  }
  throw new Error('expected a ConfigValidationError');
}

const validate = (raw: unknown) => validateConfig(raw, 'federate.config.json');

describe('federate.config.json: backend', () => {
  it('is files when absent, and a jetstream backend gets a local server and one replica by default', () => {
    expect(validate({}).config.backend).toBeUndefined();
    expect(validate({ backend: { type: 'files' } }).config.backend).toEqual({ type: 'files' });
    expect(validate({ backend: { type: 'jetstream' } }).config.backend).toEqual({
      type: 'jetstream',
      servers: ['nats://127.0.0.1:4222'],
      replicas: 1,
    });
  });

  it('keeps servers, credentials by reference, TLS files and replicas', () => {
    const backend = {
      type: 'jetstream',
      servers: ['nats://nats-1:4222', 'tls://nats-2.example.com:4222'],
      credentials: { file: 'secrets/fed.creds' },
      tls: { caFile: 'ca.pem', certFile: 'client.pem', keyFile: 'client-key.pem', handshakeFirst: false },
      replicas: 3,
    };
    expect(validate({ backend }).config.backend).toEqual(backend);
    expect(
      validate({ backend: { type: 'jetstream', credentials: { env: 'FED_NATS_CREDS' } } }).config.backend,
    ).toMatchObject({ credentials: { env: 'FED_NATS_CREDS' } });
  });

  it('refuses inline credentials, bad URLs, unknown types and impossible replicas, all at once', () => {
    expect(
      problemsOf(() =>
        validate({
          backend: {
            type: 'jetstream',
            servers: ['nats://fed:secret@nats-1:4222', 'http://nats-1', 'nats://127.0.0.1:99999'],
            credentials: { password: 'x' },
            tls: { caFile: 1 },
            replicas: 7,
          },
        }),
      ),
    ).toEqual([
      'backend.servers[0]: a server URL must not carry a user or password; give credentials by reference in backend.credentials (a creds file or an environment variable)',
      'backend.servers[1]: expected a NATS URL such as nats://127.0.0.1:4222 (nats:// or tls://, a host and an optional port up to 65535), got "http://nats-1"',
      // The NATS client could not parse it when connecting ("Invalid URL"): refused with the config.
      'backend.servers[2]: expected a NATS URL such as nats://127.0.0.1:4222 (nats:// or tls://, a host and an optional port up to 65535), got "nats://127.0.0.1:99999"',
      'backend.credentials: expected {"file": "<path to a .creds file>"} or {"env": "<variable holding the creds>"}, got object',
      'backend.tls.caFile: expected a non-empty string, got number 1',
      'backend.replicas: expected 1 to 5 replicas',
    ]);
    expect(problemsOf(() => validate({ backend: { type: 'postgres' } }))).toEqual([
      'backend.type: expected "type": "files" or "jetstream", got "postgres"',
    ]);
    expect(problemsOf(() => validate({ backend: { type: 'jetstream', servers: [] } }))).toEqual([
      'backend.servers: expected at least one server URL',
    ]);
  });

  it('reports creds and TLS files that are not there, with the key and the resolved path', () => {
    const root = tempDir();
    writeFileSync(join(root, 'ca.pem'), 'ca');
    const { config } = validate({
      backend: {
        type: 'jetstream',
        credentials: { file: 'fed.creds' },
        tls: { caFile: 'ca.pem', certFile: 'client.pem' },
      },
    });
    const problems = missingConfigFiles(root, config, backendConfigFiles(config)).filter((p) =>
      p.path.startsWith('backend'),
    );
    expect(problems).toEqual([
      {
        path: 'backend.credentials.file',
        message: `${join(root, 'fed.creds')} is not a file; fix the path or remove backend.credentials.file`,
      },
      {
        path: 'backend.tls.certFile',
        message: `${join(root, 'client.pem')} is not a file; fix the path or remove backend.tls.certFile`,
      },
    ]);
  });
});

describe('FED_NATS_URL', () => {
  it('selects the JetStream backend and overrides its servers, keeping its other settings', () => {
    const root = tempDir();
    expect(loadConfig(root, { FED_NATS_URL: 'nats://10.0.0.5:4222' }).config.backend).toEqual({
      type: 'jetstream',
      servers: ['nats://10.0.0.5:4222'],
      replicas: 1,
    });
    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({
        backend: { type: 'jetstream', servers: ['nats://a:4222'], replicas: 3, credentials: { env: 'CREDS' } },
      }),
    );
    expect(loadConfig(root, { FED_NATS_URL: 'nats://b:4222, nats://c:4222' }).config.backend).toEqual({
      type: 'jetstream',
      servers: ['nats://b:4222', 'nats://c:4222'],
      replicas: 3,
      credentials: { env: 'CREDS' },
    });
    expect(loadConfig(root, {}).config.backend).toMatchObject({ servers: ['nats://a:4222'] });
  });

  it('replaces a files backend, and is refused when it is not a list of NATS URLs', () => {
    const root = tempDir();
    writeFileSync(join(root, 'federate.config.json'), JSON.stringify({ backend: { type: 'files' } }));
    expect(loadConfig(root, { FED_NATS_URL: 'tls://nats:4222' }).config.backend).toMatchObject({
      type: 'jetstream',
      servers: ['tls://nats:4222'],
    });
    expect(problemsOf(() => loadConfig(root, { FED_NATS_URL: 'localhost:4222' }))).toEqual([
      'FED_NATS_URL: expected NATS URLs such as nats://127.0.0.1:4222 (comma-separated for several; a port up to 65535), got "localhost:4222"',
    ]);
    expect(problemsOf(() => loadConfig(root, { FED_NATS_URL: 'nats://a:4222,nats://127.0.0.1:99999' }))).toEqual([
      'FED_NATS_URL: expected NATS URLs such as nats://127.0.0.1:4222 (comma-separated for several; a port up to 65535), got "nats://a:4222,nats://127.0.0.1:99999"',
    ]);
    expect(problemsOf(() => loadConfig(root, { FED_NATS_URL: ' , ' }))).toHaveLength(1);
  });
});

describe('credentials in NATS URLs are never printed', () => {
  it('redacts a password or a token, and leaves a URL without them as it is', () => {
    expect(redactUrl('nats://fed:s3cret@nats-1:4222')).toBe('nats://fed:***@nats-1:4222');
    expect(redactUrl('tls://fed%40acme:p%3Ass@nats.example.com')).toBe('tls://fed%40acme:***@nats.example.com');
    expect(redactUrl('nats://s3cret-token@nats-1:4222')).toBe('nats://***@nats-1:4222');
    expect(redactUrl('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
    expect(redactUrl('nats://[::1]:4222')).toBe('nats://[::1]:4222');
  });

  it('the same redactor serves every URL: OTLP endpoints, tokens in a query, strings that do not parse, URLs in a message', () => {
    expect(redactUrl('https://fed:s3cret@otel.example.com:4318/v1/metrics')).toBe(
      'https://fed:***@otel.example.com:4318/v1/metrics',
    );
    expect(redactUrl('https://otel.example.com/?token=s3cret&tenant=a&api_key=k3y#access_token=t0k')).toBe(
      'https://otel.example.com/?token=***&tenant=a&api_key=***#access_token=***',
    );
    expect(redactUrl('http://localhost:18888')).toBe('http://localhost:18888');
    // Not URLs fed could use, and still never printed with what may be a password.
    expect(redactUrl('nats://fed:s3 cret@nats-1/x y')).not.toMatch(/s3/);
    expect(redactUrl('fed:s3cret@nats-1')).toBe('***@nats-1');
    expect(redactUrl('htp:/fed:s3cret@host')).toBe('***@host');
    expect(redactUrlsIn('POST https://fed:s3cret@h/v1/metrics?token=t0k: 401, see http://h/.')).toBe(
      'POST https://fed:***@h/v1/metrics?token=***: 401, see http://h/.',
    );
  });

  it('a malformed FED_NATS_URL is named in the error without its password', () => {
    const root = tempDir();
    const [problem] = problemsOf(() =>
      loadConfig(root, { FED_NATS_URL: 'nats://a:4222,http://fed:s3cret@b:4222,tok3n-only@c' }),
    );
    expect(problem).toMatch(
      /^FED_NATS_URL: expected NATS URLs .*got "nats:\/\/a:4222,http:\/\/fed:\*\*\*@b:4222\/,\*\*\*@c"$/,
    );
  });

  it('the config as fed config show prints it: servers from FED_NATS_URL redacted, credentials by reference kept as references', () => {
    const root = tempDir();
    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({ backend: { type: 'jetstream', credentials: { env: 'FED_NATS_CREDS' }, replicas: 3 } }),
    );
    const { config } = loadConfig(root, { FED_NATS_URL: 'nats://fed:s3cret@a:4222,nats://tok3n@b:4222' });
    const shown = redactedConfig(config);
    expect(shown.backend).toEqual({
      type: 'jetstream',
      servers: ['nats://fed:***@a:4222', 'nats://***@b:4222'],
      credentials: { env: 'FED_NATS_CREDS' },
      replicas: 3,
    });
    expect(JSON.stringify(shown)).not.toMatch(/s3cret|tok3n/);
    // The connection still gets the real URLs.
    expect(config.backend).toMatchObject({ servers: ['nats://fed:s3cret@a:4222', 'nats://tok3n@b:4222'] });
  });

  it('the config as fed config show prints it: the collector endpoint redacted too, whichever backend', () => {
    const root = tempDir();
    const { config } = loadConfig(root, { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://fed:s3cret@otel:4318?api_key=k3y' });
    expect(redactedConfig(config).telemetry.collector.endpoint).toBe('https://fed:***@otel:4318/?api_key=***');
    expect(config.telemetry.collector.endpoint).toBe('https://fed:s3cret@otel:4318?api_key=k3y');
  });
});
