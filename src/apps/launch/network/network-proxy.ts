import { lookup } from 'node:dns/promises';
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { connect, isIP, type Server, type Socket } from 'node:net';
import { readClientHello } from './client-hello.js';
import { checkHost, isPrivateAddress, normalHost, type HostPolicy } from './host-policy.js';

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
const CLIENT_HELLO_TIMEOUT_MS = 10_000;

/** Request headers that concern the hop to the proxy, not the server: never passed on. */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * The proxy a sandboxed agent's only way out goes through (docs/threat-model.md#the-network-policy). It
 * serves the listeners it is handed — sockets in the sandbox's own network namespace, so nothing else can
 * reach it — and speaks HTTP proxy: `CONNECT host:port` opens a tunnel (for TLS), an absolute-form
 * request (`GET http://host/…`) is forwarded. Each is let through only when the team's policy allows its
 * host and port (host-policy.ts); a name is resolved here, outside, and only to a public address unless
 * the config lists it explicitly. In a tunnel, a TLS ClientHello naming another server than the one the
 * tunnel was allowed for is cut before a byte of it goes on. Every connection is told to `onConnection`
 * once it ends: host, port, verdict and the bytes each way.
 */
export class NetworkProxy {
  private readonly http = createHttpServer();
  private readonly listeners = new Set<Server>();
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly policy: HostPolicy,
    private readonly onConnection: (connection: ProxiedConnection) => void,
    private readonly resolve: Resolve = systemResolve,
  ) {
    this.http.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
      void this.tunnel(request, client, head);
    });
    this.http.on('request', (request: IncomingMessage, response: ServerResponse) => {
      void this.forward(request, response);
    });
  }

  /** Serve the connections `listener` accepts. */
  serve(listener: Server): void {
    this.listeners.add(listener);
    listener.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      this.http.emit('connection', socket);
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

  private async tunnel(request: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    const target = authority(request.url ?? '');
    if (!target) {
      client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      return;
    }
    const record = { host: normalHost(target.host), port: target.port, bytesUp: 0, bytesDown: 0 };
    const destination = await this.destination(target.host, target.port);
    if ('reason' in destination) {
      this.onConnection({ ...record, allowed: false, reason: destination.reason });
      client.end(refusal(record.host, record.port, destination.reason));
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
      else client.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n');
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
      void firstBytes(client, head).then((first) => {
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
        upstream.pipe(client);
      });
    });
  }

  private async forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(request.url ?? '');
      if (url.protocol !== 'http:') throw new Error('not http');
    } catch {
      response.writeHead(400, { connection: 'close' }).end('fed: a proxy request names an absolute http:// URL\n');
      return;
    }
    const port = Number(url.port || 80);
    const record = { host: normalHost(url.hostname), port, bytesUp: 0, bytesDown: 0 };
    const destination = await this.destination(url.hostname, port);
    if ('reason' in destination) {
      this.onConnection({ ...record, allowed: false, reason: destination.reason });
      response.writeHead(403, { connection: 'close', 'content-type': 'text/plain' });
      response.end(refusalText(record.host, port, destination.reason));
      return;
    }
    let reason: string | undefined;
    // The Host the server sees is the URL's, which the policy allowed, never another the client wrote.
    const upstream = httpRequest({
      host: destination.address,
      port,
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers: { ...passedOn(request.headers), host: url.host },
      agent: false,
    });
    request.on('data', (chunk: Buffer) => (record.bytesUp += chunk.length));
    request.pipe(upstream);
    upstream.once('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, passedOn(answer.headers));
      answer.on('data', (chunk: Buffer) => (record.bytesDown += chunk.length));
      answer.pipe(response);
    });
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      reason = `unreachable: ${error.code ?? error.message}`;
      if (!response.headersSent) response.writeHead(502, { connection: 'close' });
      response.end();
    });
    response.once('close', () => {
      upstream.destroy();
      this.onConnection({ ...record, allowed: true, ...(reason ? { reason } : {}) });
    });
  }
}

/** `host:port` of a CONNECT (`[v6]:port` for IPv6), or undefined when it is not one. */
function authority(text: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65_535) return undefined;
  return { host: match[1]!, port };
}

function passedOn(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_HEADERS.has(name)));
}

function refusalText(host: string, port: number, reason: string): string {
  return `fed: ${host}:${port} is refused by the team's network policy (${reason})\n`;
}

function refusal(host: string, port: number, reason: string): string {
  const body = refusalText(host, port, reason);
  return `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** What the client sends first in a tunnel: enough for its ClientHello, or whatever it sent when it is not TLS. */
function firstBytes(client: Socket, head: Buffer): Promise<Buffer> {
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
      if (readClientHello(bytes).kind !== 'incomplete') finish();
    };
    const timer = setTimeout(finish, CLIENT_HELLO_TIMEOUT_MS);
    if (readClientHello(bytes).kind !== 'incomplete') return finish();
    client.on('data', onData);
    client.once('end', finish);
    // The HTTP server paused the socket as it handed it over: a listener alone does not resume it.
    client.resume();
  });
}
