import { once } from 'node:events';
import { createServer as createHttpServer, request, type IncomingHttpHeaders } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AGENT_PRESET_CATALOG,
  checkHost,
  hostPolicy,
  type HostPolicy,
  isPrivateAddress,
  NetworkLog,
  networkSummary,
  readClientHello,
} from 'fed/testing';
import { policyOf, startProxy as startProxyFor } from '../../helpers/network-proxy.js';
import { parseHostEntry } from '../../../src/core/schema/network-policy.js';

const PRESETS = Object.values(AGENT_PRESET_CATALOG);

describe('host matching', () => {
  it('matches a wildcard on whole labels only, a name exactly, case and trailing dot aside', () => {
    const policy = policyOf(['*.example.com', 'api.other.org']);
    expect(checkHost(policy, 'a.example.com', 443)).toEqual({ allowed: true, explicit: false });
    expect(checkHost(policy, 'A.B.Example.COM.', 443)).toMatchObject({ allowed: true });
    expect(checkHost(policy, 'evil-example.com', 443)).toMatchObject({ allowed: false });
    expect(checkHost(policy, 'example.com', 443)).toMatchObject({ allowed: false });
    expect(checkHost(policy, 'example.com.evil.net', 443)).toMatchObject({ allowed: false });
    expect(checkHost(policy, 'api.other.org', 80)).toEqual({ allowed: true, explicit: true });
    expect(checkHost(policy, 'x.api.other.org', 443)).toMatchObject({ allowed: false });
  });

  it('holds a port when the entry names one', () => {
    const policy = policyOf(['paste.example:443']);
    expect(checkHost(policy, 'paste.example', 443)).toMatchObject({ allowed: true });
    expect(checkHost(policy, 'paste.example', 8443)).toEqual({ allowed: false, reason: 'not in the policy' });
  });

  it('lets an IP address through only when listed as one; a number for a name never', () => {
    const policy = policyOf(['example.com', '10.0.0.5', '[fd00::5]:8080']);
    expect(checkHost(policy, '10.0.0.5', 22)).toEqual({ allowed: true, explicit: true });
    expect(checkHost(policy, '[fd00::5]', 8080)).toMatchObject({ allowed: true });
    expect(checkHost(policy, 'fd00:0:0:0:0:0:0:5', 8080)).toMatchObject({ allowed: true });
    expect(checkHost(policy, '93.184.216.34', 443)).toEqual({
      allowed: false,
      reason: 'an IP address the policy does not list',
    });
    for (const numeric of ['2130706433', '0x7f000001', '127.1'])
      expect(checkHost(policy, numeric, 443)).toMatchObject({ allowed: false });
  });

  it('names private, loopback, link-local and mapped addresses as such', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '224.0.0.1',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['93.184.216.34', '2606:4700::6810:85e5', '::ffff:8.8.8.8'])
      expect(isPrivateAddress(address), address).toBe(false);
  });

  it('builds each policy: the preset hosts for "provider", nothing for "none", both when asked', () => {
    expect(hostPolicy('open', ['api.anthropic.com'])).toBe('open');
    expect(hostPolicy('none', ['api.anthropic.com'])).toEqual({ label: 'none (no host)', entries: [], forwarded: [] });
    const provider = hostPolicy('provider', ['api.anthropic.com']) as HostPolicy;
    expect(provider.label).toBe('provider: api.anthropic.com');
    expect(checkHost(provider, 'api.anthropic.com', 443)).toEqual({ allowed: true, explicit: false });
    const both = hostPolicy({ provider: true, allow: ['pypi.org'] }, ['api.anthropic.com']) as HostPolicy;
    expect(both.label).toBe('provider: api.anthropic.com, pypi.org');
    expect(checkHost(both, 'pypi.org', 443)).toEqual({ allowed: true, explicit: true });
    expect(hostPolicy({ allow: ['pypi.org'] }, ['api.anthropic.com'])).toMatchObject({ label: 'allow: pypi.org' });
  });

  it("forwards the machine's loopback ports listed with their port, and refuses a loopback entry it could not forward", () => {
    const policy = hostPolicy({ provider: true, allow: ['127.0.0.1:4000', 'localhost:11434', 'pypi.org'] }, [
      'api.anthropic.com',
    ]) as HostPolicy;
    expect(policy.forwarded).toEqual([4000, 11434]);
    expect(parseHostEntry('localhost')).toMatch(/needs its port \(like localhost:4000\)/);
    expect(parseHostEntry('127.0.0.1')).toMatch(/needs its port/);
    expect(parseHostEntry('[::1]:4000')).toMatch(/written 127\.0\.0\.1:<port> or localhost:<port>/);
    expect(parseHostEntry('127.0.0.2:4000')).toMatch(/written 127\.0\.0\.1:<port>/);
    expect(parseHostEntry('127.0.0.1:3128')).toMatch(/port 3128 is the sandbox's own/);
  });

  it("lists each preset's provider hosts as valid entries, and none for a command whose provider fed cannot know", () => {
    for (const preset of PRESETS)
      for (const host of preset.providerHosts)
        expect(parseHostEntry(host), `${preset.name}: ${host}`).not.toBeTypeOf('string');
    const hosts = Object.fromEntries(PRESETS.map((preset) => [preset.name, preset.providerHosts]));
    expect(hosts.claude).toContain('api.anthropic.com');
    expect(hosts.codex).toContain('api.openai.com');
    expect(hosts.gemini).toContain('generativelanguage.googleapis.com');
    expect(hosts['fed-agent']).toEqual([]);
    expect(hosts.custom).toEqual([]);
  });
});

/** The bytes a TLS client sends first, naming `servername`, caught by a plain TCP server. */
async function clientHelloFor(servername: string): Promise<Buffer> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const caught = new Promise<Buffer>((resolve) =>
    server.once('connection', (socket: Socket) =>
      socket.once('data', (chunk: Buffer) => (resolve(chunk), socket.destroy())),
    ),
  );
  const tls = tlsConnect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', servername });
  tls.on('error', () => undefined);
  const hello = await caught;
  server.close();
  return hello;
}

describe('a ClientHello', () => {
  it('names its server, whole or in records split anywhere; is incomplete until then; is told from what is not TLS', async () => {
    const hello = await clientHelloFor('api.example.com');
    expect(readClientHello(hello)).toEqual({ kind: 'hello', serverName: 'api.example.com' });
    expect(readClientHello(hello.subarray(0, 40))).toEqual({ kind: 'incomplete' });
    // The same handshake in two records.
    const body = hello.subarray(5);
    const record = (part: Buffer) =>
      Buffer.concat([Buffer.from([0x16, 0x03, 0x01, part.length >> 8, part.length & 0xff]), part]);
    const split = Buffer.concat([record(body.subarray(0, 50)), record(body.subarray(50))]);
    expect(readClientHello(split)).toEqual({ kind: 'hello', serverName: 'api.example.com' });
    expect(readClientHello(Buffer.from('GET / HTTP/1.1\r\n'))).toEqual({ kind: 'not-tls' });
    expect(readClientHello(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x04, 0x02, 0, 0, 0]))).toEqual({ kind: 'malformed' });
  });
});

describe('the network log', () => {
  it('adds up each host and verdict, and says the run in a line naming what was refused', () => {
    const log = new NetworkLog('provider: api.anthropic.com');
    const add = (host: string, allowed: boolean, bytes = 0) =>
      log.add({
        host,
        port: 443,
        allowed,
        bytesUp: bytes,
        bytesDown: bytes * 2,
        ...(allowed ? {} : { reason: 'not in the policy' }),
      });
    add('api.anthropic.com', true, 10);
    add('api.anthropic.com', true, 5);
    add('paste.example', false);
    expect(log.record().hosts).toEqual([
      { host: 'api.anthropic.com', port: 443, allowed: true, connections: 2, bytesUp: 15, bytesDown: 30 },
      {
        host: 'paste.example',
        port: 443,
        allowed: false,
        connections: 1,
        bytesUp: 0,
        bytesDown: 0,
        reason: 'not in the policy',
      },
    ]);
    expect(networkSummary(log.record())).toBe(
      'network provider: api.anthropic.com — 2 hosts, 1 refused: paste.example:443',
    );
    expect(networkSummary(new NetworkLog('none (no host)').record())).toBe('network none (no host) — no connection');
    for (let i = 0; i < 150; i++) add(`h${i}.example`, false);
    expect(log.record().hosts.length).toBeLessThanOrEqual(101);
  });
});

describe('the proxy', () => {
  const closers: (() => void)[] = [];
  afterEach(() => closers.splice(0).forEach((close) => close()));

  const startProxy = (policy: HostPolicy, names: Record<string, string[]> = {}) =>
    startProxyFor(closers, policy, names);

  /** A local server that answers with the Host header it got. */
  async function upstream() {
    const server = createHttpServer((req, res) => res.end(`host ${req.headers.host}`));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => server.close());
    return (server.address() as AddressInfo).port;
  }

  function get(proxyPort: number, url: string, headers: IncomingHttpHeaders = {}) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: proxyPort, path: url, headers });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  function tunnel(proxyPort: number, target: string) {
    return new Promise<{ status: number; socket: Socket }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: proxyPort, method: 'CONNECT', path: target });
      req.on('connect', (res, socket) => resolve({ status: res.statusCode!, socket }));
      req.on('error', reject);
      req.end();
    });
  }

  it('forwards a plain request to an allowed host with its own Host header, and refuses the rest', async () => {
    const port = await upstream();
    const { seen, port: proxyPort } = await startProxy(policyOf([`api.example:${port}`]), {
      'api.example': ['127.0.0.1'],
    });
    expect(await get(proxyPort, `http://api.example:${port}/x`, { host: 'evil.example' })).toEqual({
      status: 200,
      body: `host api.example:${port}`,
    });
    const refused = await get(proxyPort, `http://other.example:${port}/`);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain(`other.example:${port} is refused by the team's network policy (not in the policy)`);
    await expect.poll(() => seen.length).toBe(2);
    expect(seen).toContainEqual(
      expect.objectContaining({ host: 'api.example', allowed: true, bytesDown: expect.any(Number) }),
    );
    expect(seen).toContainEqual(expect.objectContaining({ host: 'other.example', allowed: false }));
  });

  it('reaches a private address through an explicit entry only, never through a wildcard', async () => {
    const port = await upstream();
    const names = { 'api.test.example': ['127.0.0.1'], 'rebound.test.example': ['10.0.0.1', '127.0.0.1'] };
    const wildcard = await startProxy(policyOf(['*.test.example']), names);
    expect((await get(wildcard.port, `http://api.test.example:${port}/`)).status).toBe(403);
    expect((await tunnel(wildcard.port, `rebound.test.example:${port}`)).status).toBe(403);
    await expect.poll(() => wildcard.seen.length).toBe(2);
    expect(wildcard.seen[0]!.reason).toMatch(/^resolves to 127\.0\.0\.1: a private or loopback address/);
    const explicit = await startProxy(policyOf(['api.test.example']), names);
    expect(await get(explicit.port, `http://api.test.example:${port}/`)).toMatchObject({ status: 200 });
  });

  it('opens a tunnel to an allowed host, and cuts one whose ClientHello names another server', async () => {
    const hellos: Buffer[] = [];
    const tls = createServer((socket) =>
      socket.once('data', (chunk: Buffer) => (hellos.push(chunk), socket.destroy())),
    );
    tls.listen(0, '127.0.0.1');
    await once(tls, 'listening');
    closers.push(() => tls.close());
    const port = (tls.address() as AddressInfo).port;
    const { seen, port: proxyPort } = await startProxy(policyOf([`api.example:${port}`]), {
      'api.example': ['127.0.0.1'],
    });
    for (const servername of ['api.example', 'evil.example']) {
      const { status, socket } = await tunnel(proxyPort, `api.example:${port}`);
      expect(status).toBe(200);
      const client = tlsConnect({ socket, servername });
      await new Promise((resolve) => (client.on('error', resolve), client.on('close', resolve)));
    }
    await expect.poll(() => seen.length).toBe(2);
    expect(hellos).toHaveLength(1);
    expect(readClientHello(hellos[0]!)).toEqual({ kind: 'hello', serverName: 'api.example' });
    expect(seen).toContainEqual(
      expect.objectContaining({
        allowed: false,
        reason: 'TLS server name "evil.example" differs from the host the tunnel was allowed for',
      }),
    );
    // Nothing of the cut ClientHello went on.
    expect(seen.find((c) => !c.allowed)!.bytesUp).toBe(0);
  });

  it("passes a server's first words on at once: a tunnel to a server that speaks first does not wait", async () => {
    const server = createServer((socket) => {
      socket.write('SSH-2.0-server\r\n');
      socket.on('data', (chunk: Buffer) => socket.end(`echo ${chunk}`));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => server.close());
    const port = (server.address() as AddressInfo).port;
    const { seen, port: proxyPort } = await startProxy(policyOf([`api.example:${port}`]), {
      'api.example': ['127.0.0.1'],
    });
    const socket = connect(proxyPort, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
      // Answered only once the server has spoken, as an SSH client does.
      if (answer.endsWith('SSH-2.0-server\r\n')) socket.write('SSH-2.0-client\r\n');
    });
    socket.write(`CONNECT api.example:${port} HTTP/1.1\r\nHost: api.example:${port}\r\n\r\n`);
    await once(socket, 'close');
    expect(answer).toBe('HTTP/1.1 200 Connection Established\r\n\r\nSSH-2.0-server\r\necho SSH-2.0-client\r\n');
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]).toMatchObject({ allowed: true, bytesUp: 'SSH-2.0-client\r\n'.length });
  }, 5_000);

  it('answers a request that is no proxy request with 400', async () => {
    const { port: proxyPort } = await startProxy(policyOf([]));
    const socket = connect(proxyPort, '127.0.0.1');
    socket.end('GET /direct HTTP/1.1\r\nHost: x\r\n\r\n');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    await once(socket, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
  });
});
