import { handOverListeners } from '../../../../infra/process/listener-channel.js';

/**
 * Run first inside a sandbox with a network policy (`node sandbox-listener.js <port>…`, by the shell that
 * then becomes the agent): listens on 127.0.0.1 at each port in the sandbox's own network namespace — the
 * proxy's, the broker's — and hands each listening socket to the launcher over the IPC channel it
 * inherited (fd 4, through the watchdog), so fed serves them from outside: no Unix socket is needed
 * inside, where none can be made. Exits once the launcher has them all: the agent starts only then, with
 * nothing of fed's left running in the sandbox. (The built-in agent does this itself: listenForLauncher.)
 */
handOverListeners(process.argv.slice(2).map(Number)).then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`fed: the sandbox's listener: ${error.message}\n`);
    process.exit(1);
  },
);
