import { connect, createServer, type Socket } from 'node:net';
import { onTestFinished } from 'vitest';

/** A relay to a local TCP port that a test cuts and mends: a network partition between one client and a server. */
export interface TcpRelay {
  /** The relay's own port on 127.0.0.1, for the client to connect to instead of the server's. */
  port: number;
  /** Ends every relayed connection, and each new one as it comes, until mended (the client sees the server gone). */
  cut(): void;
  mend(): void;
}

/**
 * A relay on a free 127.0.0.1 port to `targetPort` there, closed when the test ends. Cut, it keeps its port
 * (so the client's reconnects find nothing else there) and closes what connects at once.
 */
export async function tcpRelay(targetPort: number): Promise<TcpRelay> {
  const open = new Set<Socket>();
  let cut = false;
  const server = createServer((client) => {
    if (cut) return client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        open.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      cut = true;
      for (const socket of open) socket.destroy();
    },
    mend() {
      cut = false;
    },
  };
}
