import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { connect, createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { policyOf, startProxy } from '../../helpers/network-proxy.js';

/**
 * Plain-HTTP forwarding through a network policy's proxy: the head rewritten, bodies passed raw, one
 * request per connection — so a second request is checked like the first, and nothing past a body's end
 * reaches the server.
 */
describe('plain-HTTP forwarding', () => {
  const closers: (() => void)[] = [];
  afterEach(() => closers.splice(0).forEach((close) => close()));

  /**
   * A raw server: records the bytes of each connection, and once `done(bytes)` says the request is whole,
   * writes `answer` and closes.
   */
  async function rawServer(answer: string | Buffer, done = (bytes: Buffer) => bytes.includes('\r\n\r\n')) {
    const received: Buffer[] = [];
    const server = createServer((socket) => {
      const index = received.push(Buffer.alloc(0)) - 1;
      socket.on('data', (chunk: Buffer) => {
        received[index] = Buffer.concat([received[index]!, chunk]);
        if (done(received[index]!)) socket.end(answer);
      });
      socket.on('error', () => undefined);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => server.close());
    return { received, port: (server.address() as AddressInfo).port };
  }

  /** Everything the proxy answers to `bytes`, sent in one write, until it closes the connection. */
  async function exchange(proxyPort: number, bytes: string | Buffer): Promise<Buffer> {
    const socket = connect(proxyPort, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.write(bytes);
    await once(socket, 'close');
    return Buffer.concat(chunks);
  }

  it('passes a chunked answer on as it came, its head saying the connection closes; records the bytes each way', async () => {
    const head =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nX-Kept: 1\r\n';
    const body = '5;ext=1\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n';
    const answer = `HTTP/1.1 100 Continue\r\n\r\n${head}\r\n${body}`;
    const server = await rawServer(answer);
    const { seen, port } = await startProxy(closers, policyOf([`api.example:${server.port}`]), {
      'api.example': ['127.0.0.1'],
    });
    const got = await exchange(port, `GET http://api.example:${server.port}/x?y=1 HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(got.toString('latin1')).toBe(
      `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Kept: 1\r\nConnection: close\r\n\r\n${body}`,
    );
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]).toMatchObject({
      host: 'api.example',
      allowed: true,
      bytesUp: server.received[0]!.length,
      bytesDown: Buffer.byteLength(answer),
    });
  });

  it('rewrites the head for the server: origin form, its own Host, no hop headers, the framing kept', async () => {
    const server = await rawServer('HTTP/1.1 204 No Content\r\n\r\n', (bytes) => bytes.includes('body!'));
    const { port } = await startProxy(closers, policyOf([`api.example:${server.port}`]), {
      'api.example': ['127.0.0.1'],
    });
    await exchange(
      port,
      `POST http://API.example:${server.port}/p?q HTTP/1.1\r\nHost: evil.example\r\nProxy-Authorization: secret\r\n` +
        'Connection: keep-alive, X-Hop, Content-Length\r\nX-Hop: 1\r\nX-End: 2\r\nContent-Length: 5\r\n\r\nbody!',
    );
    expect(server.received[0]!.toString('latin1')).toBe(
      `POST /p?q HTTP/1.1\r\nhost: api.example:${server.port}\r\nconnection: close\r\nx-end: 2\r\ncontent-length: 5\r\n\r\nbody!`,
    );
  });

  it('passes a chunked request body on raw and nothing after its end: a pipelined request goes nowhere', async () => {
    const server = await rawServer('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok', (bytes) =>
      bytes.includes('\r\n0\r\n\r\n'),
    );
    const other = await rawServer('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nleaked');
    const { seen, port } = await startProxy(closers, policyOf([`api.example:${server.port}`]), {
      'api.example': ['127.0.0.1'],
      'other.example': ['127.0.0.1'],
    });
    const body = '3\r\nabc\r\n10;x=y\r\n0123456789abcdef\r\n0\r\n\r\n';
    const smuggled = `GET http://other.example:${other.port}/ HTTP/1.1\r\nHost: other.example:${other.port}\r\n\r\n`;
    const got = await exchange(
      port,
      `POST http://api.example:${server.port}/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${body}${smuggled}`,
    );
    expect(got.toString()).toBe('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
    expect(server.received[0]!.toString().endsWith(`\r\n\r\n${body}`)).toBe(true);
    expect(other.received).toHaveLength(0);
    await expect.poll(() => seen.length).toBe(1);
  });

  it('closes a kept-alive connection after one answer: the next request, to a refused host, is checked and refused', async () => {
    const allowed = await rawServer('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    const refused = await rawServer('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nleaked');
    const { seen, port } = await startProxy(closers, policyOf([`api.example:${allowed.port}`]), {
      'api.example': ['127.0.0.1'],
      'other.example': ['127.0.0.1'],
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    closers.push(() => agent.destroy());
    const get = (url: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: url, agent });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        });
        req.on('error', reject);
        req.end();
      });
    expect(await get(`http://api.example:${allowed.port}/`)).toEqual({ status: 200, body: 'ok' });
    expect((await get(`http://other.example:${refused.port}/`)).status).toBe(403);
    expect(refused.received).toHaveLength(0);
    await expect.poll(() => seen.length).toBe(2);
    expect(seen[1]).toMatchObject({ host: 'other.example', allowed: false });
  });

  it.each([
    ['both framings', 'Transfer-Encoding: chunked\r\nContent-Length: 3', /^HTTP\/1\.1 400/],
    ['an encoding other than chunked', 'Transfer-Encoding: gzip, chunked', /^HTTP\/1\.1 501/],
    ['two lengths', 'Content-Length: 3\r\nContent-Length: 4', /^HTTP\/1\.1 400/],
    ['a bare LF in the head', 'X-A: 1\nHost: other.example', /^HTTP\/1\.1 400/],
    ['a folded header', 'X-A: 1\r\n Host: other.example', /^HTTP\/1\.1 400/],
  ])('refuses a request with %s, passing nothing on', async (_, headers, status) => {
    const server = await rawServer('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    const { port } = await startProxy(closers, policyOf([`api.example:${server.port}`]), {
      'api.example': ['127.0.0.1'],
    });
    const got = await exchange(port, `POST http://api.example:${server.port}/ HTTP/1.1\r\n${headers}\r\n\r\nabc`);
    expect(got.toString()).toMatch(status);
    expect(server.received).toHaveLength(0);
  });

  it('cuts a chunked body whose framing cannot be read, before the bad bytes go on', async () => {
    const server = await rawServer('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n', () => false);
    const { seen, port } = await startProxy(closers, policyOf([`api.example:${server.port}`]), {
      'api.example': ['127.0.0.1'],
    });
    await exchange(
      port,
      `POST http://api.example:${server.port}/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXX0\r\n\r\n`,
    );
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]!.reason).toBe('a chunked request body that cannot be read');
    expect(server.received[0]!.toString()).not.toContain('abc');
  });
});
