import type { Command } from 'commander';
import { isLoopback } from '../../apps/ui/server/security.js';
import { CliExit, federationContext, type CliIo } from '../io.js';
import { Interrupt } from '../interrupt.js';
import { portNumber } from '../option-parsers.js';

/** `fed ui`: the dashboard (issue 29), served until Ctrl-C; the server and its views load only here. */
export function registerUi(program: Command, io: CliIo): void {
  program
    .command('ui')
    .description('serve a live dashboard of the federation on a local port, until Ctrl-C; prints the URL to open first')
    .option('--port <port>', 'port to listen on (0: a free one)', portNumber(), 0)
    .option('--host <address>', 'address to listen on (another than loopback is reachable by others)', '127.0.0.1')
    .option('--open', "open the URL in the system's browser")
    .action(async (options: { port: number; host: string; open?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const { startUiServer } = await import('../../apps/ui/server/ui-server.js');
      const interrupt = new Interrupt();
      // The change feed broke for good: serving a page that never updates would mislead, so fed ui ends (1).
      let feedFailed: (error: Error) => void = () => undefined;
      const feedFailure = new Promise<Error>((resolve) => (feedFailed = resolve));
      try {
        const server = await startUiServer(ctx.fed, {
          port: options.port,
          host: options.host,
          onFeedError: (error) => feedFailed(error),
        });
        io.stdout(`${server.url}\n`);
        if (!isLoopback(options.host))
          io.stderr(
            `warning: listening on ${options.host}: anyone who can reach this address and has the token can steer the federation\n`,
          );
        if (options.open) {
          const { openBrowser } = await import('../open-browser.js');
          const warning = await openBrowser(server.url);
          if (warning) io.stderr(`warning: ${warning}\n`);
        }
        const interrupted = new Promise<undefined>((resolve) => {
          if (interrupt.signal.aborted) resolve(undefined);
          else interrupt.signal.addEventListener('abort', () => resolve(undefined), { once: true });
        });
        const failure = await Promise.race([interrupted, feedFailure]);
        await server.close();
        if (failure) {
          io.stderr(
            `error: live updates stopped: ${failure.message}; the dashboard no longer updates, start fed ui again\n`,
          );
          throw new CliExit(1);
        }
      } finally {
        interrupt.dispose();
      }
    });
}
