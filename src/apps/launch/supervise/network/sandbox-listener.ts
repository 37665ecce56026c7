import { createServer, type Server } from 'node:net';
import { LISTENER_READY } from '../../../../infra/process/listener-channel.js';

/**
 * Run first inside a sandbox with a network policy (`node sandbox-listener.js <port>…`, by the shell that
 * then becomes the agent): listens on 127.0.0.1 at each port in the sandbox's own network namespace — the
 * proxy's, the broker's — and hands each listening socket to the launcher over the IPC channel it
 * inherited (fd 4, through the watchdog), so fed serves them from outside: no Unix socket is needed
 * inside, where none can be made. Exits once the launcher has them all: the agent starts only then, with
 * nothing of fed's left running in the sandbox.
 */
const ports = process.argv.slice(2).map(Number);
let waiting = ports.length;
process.on('message', (message) => {
  if (message !== LISTENER_READY) process.exit(1);
  if (--waiting === 0) process.exit(0);
});
process.once('disconnect', () => process.exit(1));
for (const port of ports) {
  const server: Server = createServer();
  server.on('error', (error) => {
    process.stderr.write(`fed: the sandbox cannot listen on 127.0.0.1:${port}: ${error.message}\n`);
    process.exit(1);
  });
  server.listen(port, '127.0.0.1', () => process.send!({ listener: port }, server, () => server.close()));
}
