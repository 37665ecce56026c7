import type { Command } from 'commander';
import { loadHooks } from '../../engine/hooks/load-hooks.js';
import { DEFAULT_STALE_AFTER_MINUTES } from '../../apps/monitor/monitor-cycle.js';
import { renderMonitorReport } from '../../apps/monitor/render-monitor.js';
import { runMonitor } from '../../apps/monitor/run-monitor.js';
import { CliExit, federationContext, printJson, type CliIo } from '../io.js';
import { Interrupt } from '../interrupt.js';
import { positiveNumber, REPEAT_INTERVAL, timerSeconds } from '../option-parsers.js';

export function registerMonitor(program: Command, io: CliIo): void {
  program
    .command('monitor')
    .description(
      'run a monitoring cycle: every team with its lifecycle, signals, deliverable and health (the monitor script)',
    )
    .option('--json', 'print the cycle as one JSON object')
    .option(
      '--watch [seconds]',
      'repeat the cycle every <seconds> (default 10; at least 0.1, at most 24 days) until interrupted',
      timerSeconds(REPEAT_INTERVAL),
    )
    .option(
      '--stale-after <minutes>',
      `a working lifecycle not updated for this long is unhealthy (default ${DEFAULT_STALE_AFTER_MINUTES})`,
      positiveNumber(),
    )
    .option('--fail-on-unhealthy', 'exit 1 when any team is unhealthy')
    .action(
      async (
        options: { json?: boolean; watch?: number | true; staleAfter?: number; failOnUnhealthy?: boolean },
        command: Command,
      ) => {
        const ctx = federationContext(command, io);
        const config = ctx.config.config;
        const hooks = await loadHooks(ctx.root, config, 'monitor');
        // Asked only to draw the table: the question makes the output stream (a few ms of a --json cycle).
        const color = () => io.isTTY && !io.env.NO_COLOR;
        const intervalMs =
          options.watch === undefined ? undefined : (options.watch === true ? 10 : options.watch) * 1000;
        const stop = new Interrupt();
        try {
          const last = await runMonitor(ctx.fed, {
            config,
            staleAfterMinutes: options.staleAfter,
            intervalMs,
            signal: stop.signal,
            env: io.env,
            hooks,
            onWarning: (text) => io.stderr(`warning: ${text}\n`),
            onReport: (report, cycle) => {
              if (options.json) return printJson(io, report);
              // On a terminal the table is redrawn in place; in a log each cycle is appended.
              if (intervalMs !== undefined && io.isTTY) io.terminal('\x1b[2J\x1b[H');
              else if (cycle > 0) io.stdout('\n');
              if (intervalMs !== undefined) io.stdout(`# ${report.generatedAt}\n`);
              // Coloured, it is escaped already but for fed's colours (renderMonitorReport).
              const colored = color();
              (colored ? io.terminal : io.stdout)(renderMonitorReport(report, { color: colored }));
            },
          });
          if (options.failOnUnhealthy && last.totals.unhealthy > 0) throw new CliExit(1);
        } finally {
          stop.dispose();
        }
      },
    );
}
