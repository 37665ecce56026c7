import { lookup } from 'node:dns/promises';
import { STATUS_CODES } from 'node:http';
import { connect, isIP, type Server, type Socket } from 'node:net';
import { readClientHello } from './client-hello.js';
import type { HostPolicy } from '../../prepare/sandbox/host-policy.js';
import { checkHost, isPrivateAddress, normalHost } from './host-check.js';
import { bodyEnd } from './request-body.js';
import { readRequestHead, type RequestHead } from './request-head.js';
import { closingAnswer } from './response-head.js';

/** One connection the proxy was asked for, as the run records it. */
export interface ProxiedConnection {
  host: string;
  port: number;
  allowed: boolean;
  reason?: string;
  bytesUp: number;
  bytesDown: number;
}

/** Names to addresses, outside the sandboxed (tests hand in their own). */
export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = async (host) => (await lookup(host, { all: true })).map((found) => found.address);

/** How long a client may take to send its request head or its ClientHello. */
const CLIENT_TIMEOUT_MS = 10_000;

/**
 * Request headers that concern the hop to the proxy, not the server: never passed on (the framing headers,
 * Content-Length and Transfer-Encoding, are, since the body goes on as it came).
 */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-authorization', 'proxy-connection', 'te', 'upgrade']);

/** Headers a client's `Connection` may not strip: the proxy sets Host, and the framing must reach the server. */
const KEPT_HEADERS = new Set(['host', 'content-length', 'transfer-encoding']);

/**
 * The proxy a sandboxed agent's only way out goes through (docs/threat-model.md#the-network-policy). It
 * serves the listeners it is handed — sockets in the sandbox's own network namespace, so nothing else can
 * reach it — and speaks HTTP proxy: `CONNECT host:port` opens a tunnel (for TLS), an absolute-form
 * request (`GET http://host/…`) is forwarded: its head rewritten, its body and the answer's passed on
 * raw, and the connection closed after that one answer, so that each request is checked on its own. Each is let through only when the team's policy allows its
 * host and port (host-policy.ts); a name is resolved here, outside, and only to a public address unless
 * the config lists it explicitly. In a tunnel, a TLS ClientHello naming another server than the one the
 * tunnel was allowed for is cut before a byte of it goes on. Every connection is told to `onConnection`
 * once it ends: host, port, verdict and the bytes each way.
 */
export class NetworkProxy {
  private readonly listeners = new Set<Server>();
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly policy: HostPolicy,
    private readonly onConnection: (connection: ProxiedConnection) => void,
    private readonly resolve: Resolve = systemResolve,
  ) {}

  /** Serve the connections `listener` accepts. */
  serve(listener: Server): void {
    this.listeners.add(listener);
    listener.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      // A client that resets is no fault of the proxy's: whatever it was part of ends with it.
      socket.on('error', () => socket.destroy());
      void this.accept(socket);
    });
  }

  /** Stop: no new connection, and those still open are cut (the agent has exited). */
  close(): void {
    for (const listener of this.listeners) listener.close();
    for (const socket of this.sockets) socket.destroy();
  }

  /**
   * Where `host:port` may be reached, or why not: the policy, then — for a name — the addresses it
   * resolves to, a private one only for an explicit entry.
   */
  private async destination(rawHost: string, port: number): Promise<{ address: string } | { reason: string }> {
    const verdict = checkHost(this.policy, rawHost, port);
    if (!verdict.allowed) return { reason: verdict.reason };
    const host = normalHost(rawHost);
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await this.resolve(host);
    } catch (error) {
      return { reason: `cannot resolve: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
    }
    const reachable = verdict.explicit ? addresses : addresses.filter((address) => !isPrivateAddress(address));
    if (reachable.length === 0)
      return {
        reason: `resolves to ${addresses.join(', ') || 'nothing'}: a private or loopback address no wildcard or preset reaches (list the host itself to allow it)`,
      };
    return { address: reachable[0]! };
  }

  /** Read the request head, then open the tunnel or forward the request it asks for. */
  private async accept(client: Socket): Promise<void> {
    const reading = readRequestHead(
      await firstBytes(client, Buffer.alloc(0), (bytes) => readRequestHead(bytes).kind !== 'incomplete'),
    );
    // Silent for too long, or gone: nothing was asked.
    if (reading.kind === 'incomplete') return void client.destroy();
    if (reading.kind === 'malformed') return void client.end(answer(reading.status, `fed: ${reading.reason}\n`));
    if (reading.head.method === 'CONNECT') return this.tunnel(reading.head.target, client, reading.rest);
    return this.forward(reading.head, client, reading.rest);
  }

  private async tunnel(requestTarget: string, client: Socket, head: Buffer): Promise<void> {
    const target = authority(requestTarget);
    if (!target) return void client.end(answer(400, 'fed: CONNECT names host:port\n'));
    const record = { host: normalHost(target.host), port: target.port, bytesUp: 0, bytesDown: 0 };
    const destination = await this.destination(target.host, target.port);
    if ('reason' in destination) {
      this.onConnection({ ...record, allowed: false, reason: destination.reason });
      client.end(answer(403, refusalText(record.host, record.port, destination.reason)));
      return;
    }
    const upstream = connect({ host: destination.address, port: target.port });
    // Cut with the rest when the proxy closes (the agent has exited), whatever the server does.
    this.sockets.add(upstream);
    upstream.once('close', () => this.sockets.delete(upstream));
    let reason: string | undefined;
    let allowed = true;
    let established = false;
    const done = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      reason ??= `unreachable: ${error.code ?? error.message}`;
      // Before the tunnel is up the client is told; after, it is cut.
      if (established) done();
      else client.end(answer(502, `fed: ${reason}\n`));
    });
    client.once('error', done);
    upstream.once('close', () => {
      if (established) done();
      this.onConnection({
        ...record,
        allowed,
        ...(reason ? { reason } : {}),
        bytesUp: upstream.bytesWritten,
        bytesDown: upstream.bytesRead,
      });
    });
    upstream.once('connect', () => {
      established = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      // The server's side goes on at once — a server that speaks first (SSH) is answered without waiting
      // out the ClientHello's time — while the client's is held until its first bytes are read.
      upstream.pipe(client);
      void firstBytes(client, head, (bytes) => readClientHello(bytes).kind !== 'incomplete').then((first) => {
        const hello = readClientHello(first);
        const serverName = hello.kind === 'hello' ? hello.serverName : null;
        if (hello.kind === 'malformed' || (hello.kind === 'incomplete' && first.length > 0)) {
          allowed = false;
          reason = 'a TLS ClientHello that cannot be read';
        } else if (serverName !== null && normalHost(serverName) !== record.host) {
          allowed = false;
          reason = `TLS server name "${serverName}" differs from the host the tunnel was allowed for`;
        }
        if (!allowed || client.destroyed) return done();
        upstream.write(first);
        client.pipe(upstream);
      });
    });
  }

  /**
   * Forward one absolute-form request: its head rewritten for the server (origin form, the URL's Host,
   * `Connection: close`, the hop's own headers dropped), its body passed on raw up to where it ends, the
   * answer passed back raw. The server closes after that answer and so does the proxy: a second request
   * the client sends on the connection is never passed on — it asks again, on a new connection, checked
   * like the first.
   */
  private async forward(head: RequestHead, client: Socket, rest: Buffer): Promise<void> {
    const url = absoluteUrl(head.target);
    if (!url) return void client.end(answer(400, 'fed: a proxy request names an absolute http:// URL\n'));
    const body = bodyEnd(head);
    if (!('feed' in body)) return void client.end(answer(body.status, `fed: ${body.reason}\n`));
    const port = Number(url.port || 80);
    const record = { host: normalHost(url.hostname), port, bytesUp: 0, bytesDown: 0 };
    const destination = await this.destination(url.hostname, port);
    if ('reason' in destination) {
      this.onConnection({ ...record, allowed: false, reason: destination.reason });
      return void client.end(answer(403, refusalText(record.host, port, destination.reason)));
    }
    const upstream = connect({ host: destination.address, port });
    this.sockets.add(upstream);
    let reason: string | undefined;
    let answering = false;
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      reason ??= `unreachable: ${error.code ?? error.message}`;
      // Nothing of an answer yet: the client is told; part of one: it is cut.
      if (answering) client.destroy();
      else client.end(answer(502, `fed: ${reason}\n`));
    });
    upstream.once('close', () => {
      this.sockets.delete(upstream);
      this.onConnection({
        ...record,
        allowed: true,
        ...(reason ? { reason } : {}),
        bytesUp: upstream.bytesWritten,
        bytesDown: upstream.bytesRead,
      });
    });
    client.once('close', () => upstream.destroy());
    // The answer goes back as it comes, its head saying the connection closes after it; the server ends
    // it by closing, and the client is ended with it.
    let pending: Buffer = Buffer.alloc(0);
    const onAnswer = (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      const start = closingAnswer(pending);
      if (start === 'incomplete') return;
      upstream.off('data', onAnswer);
      upstream.off('end', onEarlyEnd);
      if (start === 'malformed') {
        reason = 'an answer that is not HTTP/1';
        upstream.destroy();
        return void client.end(answer(502, `fed: ${reason}\n`));
      }
      answering = true;
      client.write(start.head);
      if (start.rest.length > 0) client.write(start.rest);
      upstream.pipe(client);
    };
    const onEarlyEnd = () => {
      reason = 'the server closed before it answered';
      client.end(answer(502, `fed: ${reason}\n`));
    };
    upstream.on('data', onAnswer);
    upstream.once('end', onEarlyEnd);
    upstream.write(forwardedHead(head, url));
    const send = (chunk: Buffer) => {
      const taken = body.feed(chunk);
      if (taken === 'malformed') {
        reason = 'a chunked request body that cannot be read';
        client.destroy();
        return;
      }
      // Past the body's end: not passed on, but still read so that the client's end is seen.
      if (taken > 0 && !upstream.write(taken === chunk.length ? chunk : chunk.subarray(0, taken))) {
        client.pause();
        upstream.once('drain', () => client.resume());
      }
    };
    send(rest);
    client.on('data', send);
    // A client that stops sending before its body is whole has given up on the request.
    client.once('end', () => {
      if (!body.done) client.destroy();
    });
    client.resume();
  }
}

/** `host:port` of a CONNECT (`[v6]:port` for IPv6), or undefined when it is not one. */
function authority(text: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65_535) return undefined;
  return { host: match[1]!, port };
}

/** An absolute-form `http://` request-target, or undefined (the proxy forwards plain HTTP only). */
function absoluteUrl(target: string): URL | undefined {
  if (!/^http:\/\//i.test(target)) return undefined;
  try {
    const url = new URL(target);
    return url.hostname ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The head the server gets: origin form, the URL's host as Host, `Connection: close`, no hop headers. */
function forwardedHead(head: RequestHead, url: URL): Buffer {
  const named = new Set(
    head.headers
      .filter(([name]) => name === 'connection')
      .flatMap(([, value]) => value.split(',').map((token) => token.trim().toLowerCase()))
      .filter((name) => !KEPT_HEADERS.has(name)),
  );
  const lines = [
    `${head.method} ${url.pathname}${url.search} ${head.version}`,
    `host: ${url.host}`,
    'connection: close',
  ];
  for (const [name, value] of head.headers)
    if (name !== 'host' && !HOP_HEADERS.has(name) && !named.has(name)) lines.push(`${name}: ${value}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

function refusalText(host: string, port: number, reason: string): string {
  return `fed: ${host}:${port} is refused by the team's network policy (${reason})\n`;
}

/** A whole answer from the proxy itself, after which the connection closes. */
function answer(status: number, text: string): string {
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
}

/**
 * What the client sends first, from `head` on: until `complete` says it is enough (a request head, a
 * ClientHello — or what shows it is none), or whatever it sent when it ends or falls silent.
 */
function firstBytes(client: Socket, head: Buffer, complete: (bytes: Buffer) => boolean): Promise<Buffer> {
  return new Promise((resolve) => {
    let bytes = head;
    const finish = () => {
      clearTimeout(timer);
      client.off('data', onData);
      client.off('end', finish);
      client.pause();
      resolve(bytes);
    };
    const onData = (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      if (complete(bytes)) finish();
    };
    const timer = setTimeout(finish, CLIENT_TIMEOUT_MS);
    if (complete(bytes)) return finish();
    client.on('data', onData);
    client.once('end', finish);
    // Paused after the request head was read: a listener alone does not resume it.
    client.resume();
  });
}
