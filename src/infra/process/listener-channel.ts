import { createServer, Server } from 'node:net';
import type { ChildProcess } from 'node:child_process';

/**
 * The IPC channel between the launcher and what listens in the sandbox's network namespace — the agent's
 * watchdog (agent-watchdog.ts), or the built-in agent itself: each listening socket goes up, then the
 * launcher's go-ahead comes down. Kept free of fed's other modules: the watchdog loads it.
 */
export const LISTENER_READY = 'fed-network-ready';
/**
 * Set for the built-in agent, which listens itself instead of a listener process before it: the ports to
 * listen on, separated by spaces (the sandbox's setting, read and removed by `listenForLauncher`).
 */
export const LISTEN_PORTS_ENV = 'FED_SANDBOX_LISTEN_PORTS';

/**
 * The sandbox's side, in the process the launcher started in its network namespace (which inherited the
 * channel): listens on 127.0.0.1 at each port there, and hands each listening socket up (its own copy
 * closed once sent). Settles when the launcher has them all — or, `once: 'sent'`, as soon as each is sent
 * (a connection made meanwhile waits in the socket's backlog for the launcher, which never goes away
 * while the process that asked it to listen runs); rejects when a port cannot be listened on, or the
 * channel closes or says anything else first.
 */
export function handOverListeners(ports: readonly number[], once: 'received' | 'sent' = 'received'): Promise<void> {
  return new Promise((resolve, reject) => {
    const send = process.send?.bind(process);
    if (!send) return reject(new Error('no channel to the launcher (it starts this process with one)'));
    let waiting = ports.length;
    let unsent = ports.length;
    const onMessage = (message: unknown) => {
      if (message !== LISTENER_READY) return settle(new Error(`the launcher sent ${JSON.stringify(message)}`));
      if (--waiting === 0) settle();
    };
    const onSent = () => {
      if (--unsent === 0 && once === 'sent') settle();
    };
    const onDisconnect = () => settle(new Error('the launcher closed the channel before it had every port'));
    const servers: Server[] = [];
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      process.off('message', onMessage).off('disconnect', onDisconnect);
      if (!error) return resolve();
      // None left listening in the sandbox: the process ends with what it says.
      for (const server of servers) server.close(() => undefined);
      reject(error);
    };
    process.on('message', onMessage).once('disconnect', onDisconnect);
    for (const port of ports) {
      const server = createServer();
      servers.push(server);
      server.on('error', (error) => settle(new Error(`cannot listen on 127.0.0.1:${port}: ${error.message}`)));
      server.listen(port, '127.0.0.1', () =>
        send({ listener: port }, server, () => {
          server.close();
          onSent();
        }),
      );
    }
  });
}

/**
 * For the built-in agent, first thing: when its sandbox asks it to listen (LISTEN_PORTS_ENV), hands the
 * ports to the launcher, then closes the channel — what a listener process before it would have done, at
 * the cost of no process of its own (a Node start, about a tenth of a second of CPU a team). Rejects as
 * `handOverListeners` does, or when the setting is not a list of ports.
 */
export async function listenForLauncher(env: NodeJS.ProcessEnv): Promise<void> {
  const setting = env[LISTEN_PORTS_ENV];
  if (setting === undefined) return;
  delete env[LISTEN_PORTS_ENV];
  const ports = setting.split(' ').map(Number);
  if (!ports.every((port) => Number.isInteger(port) && port > 0 && port < 65_536))
    throw new Error(`${LISTEN_PORTS_ENV} is not a list of ports separated by spaces: ${JSON.stringify(setting)}`);
  try {
    await handOverListeners(ports);
  } finally {
    // The channel would keep the process alive, and the rest of the program has no use for it.
    if (process.connected) process.disconnect();
  }
}

/** The launcher's side: each listener goes to `serve` with its port, then the sandbox goes on. */
export function receiveListener(child: ChildProcess, serve: (listener: Server, port: number) => void): void {
  child.on('message', (message: { listener?: unknown }, handle) => {
    if (!(handle instanceof Server) || typeof message?.listener !== 'number') return;
    serve(handle, message.listener);
    // A sandbox that failed on another port has gone: the go-ahead is for nobody then, never an error
    // event that would end the launcher.
    if (child.connected) child.send(LISTENER_READY, () => undefined);
  });
}
