import { connect, type Server, type Socket } from 'node:net';
import type { ProxiedConnection } from './network-proxy.js';

/**
 * A port of the machine's loopback the team's policy lists (`127.0.0.1:4000`: a local model server or
 * gateway), served at the same port on the sandbox's own loopback: each connection the agent makes there
 * is piped to the machine's 127.0.0.1 as it is — no proxy in between, since a client never sends a
 * loopback request to one (NO_PROXY) — and counted like the proxy's.
 */
export class LoopbackForward {
  private readonly sockets = new Set<Socket>();

  constructor(private readonly onConnection: (connection: ProxiedConnection) => void) {}

  /** Serve the sandbox's listener at `port` (handed up from its network namespace: listener-channel.ts). */
  serve(listener: Server, port: number): void {
    listener.on('connection', (client) => this.pipe(client, port));
  }

  /** The agent has exited: what is still open is cut. */
  close(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  private pipe(client: Socket, port: number): void {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    }
    let reason: string | undefined;
    upstream.once('error', (error) => (reason = `the machine's 127.0.0.1:${port}: ${error.message}`));
    client.once('error', () => upstream.destroy());
    upstream.once('close', () => {
      client.destroy();
      this.onConnection({
        host: '127.0.0.1',
        port,
        allowed: true,
        ...(reason ? { reason } : {}),
        bytesUp: upstream.bytesWritten,
        bytesDown: upstream.bytesRead,
      });
    });
    client.once('close', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
