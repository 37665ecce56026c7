import { createServer } from 'node:net';
import { LISTENER_READY } from './listener-channel.js';

/**
 * Run first inside a sandbox with a network policy (`node sandbox-listener.js <port>`, by the shell that
 * then becomes the agent): listens on 127.0.0.1:<port> in the sandbox's own network namespace and hands
 * the listening socket to the launcher over the IPC channel it inherited (fd 4, through the watchdog), so
 * the proxy serves it from outside — no socket of the host is reachable from inside for it. Exits once the
 * launcher has it: the agent starts only then, with nothing of fed's left running in the sandbox.
 */
const port = Number(process.argv[2]);
const server = createServer();
server.on('error', (error) => {
  process.stderr.write(`fed: the sandbox cannot listen for its proxy on 127.0.0.1:${port}: ${error.message}\n`);
  process.exit(1);
});
server.listen(port, '127.0.0.1', () => {
  process.once('message', (message) => process.exit(message === LISTENER_READY ? 0 : 1));
  process.once('disconnect', () => process.exit(1));
  process.send!({ listener: port }, server, () => server.close());
});
