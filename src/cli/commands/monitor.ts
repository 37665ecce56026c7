import { InvalidArgumentError, type Command } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadHooks } from '../../hooks/load-hooks.js';
import { runMonitorCycle, DEFAULT_STALE_AFTER_MINUTES } from '../../monitor/monitor-cycle.js';
import { renderMonitorReport } from '../../monitor/render-monitor.js';
import { CliExit, federationContext, printJson, type CliIo } from '../io.js';

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number > 0');
  return n;
}

export function registerMonitor(program: Command, io: CliIo): void {
  program
    .command('monitor')
    .description('run a monitoring cycle: every team with its lifecycle, signals, deliverable and health (the monitor script)')
    .option('--json', 'print the cycle as one JSON object')
    .option('--watch [seconds]', 'repeat the cycle every <seconds> (default 10) until interrupted', positiveNumber)
    .option('--stale-after <minutes>', `a working lifecycle not updated for this long is unhealthy (default ${DEFAULT_STALE_AFTER_MINUTES})`, positiveNumber)
    .option('--fail-on-unhealthy', 'exit 1 when any team is unhealthy')
    .action(async (options: { json?: boolean; watch?: number | true; staleAfter?: number; failOnUnhealthy?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      await loadHooks(ctx.root, ctx.config.config, 'monitor');
      const color = io.isTTY && !io.env.NO_COLOR;
      const intervalMs = options.watch === undefined ? undefined : (options.watch === true ? 10 : options.watch) * 1000;
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      let unhealthy = 0;
      try {
        for (let cycle = 0; ; cycle++) {
          const report = runMonitorCycle(ctx.root, { config: ctx.config.config, staleAfterMinutes: options.staleAfter });
          unhealthy = report.totals.unhealthy;
          if (options.json) printJson(io, report);
          else {
            // On a terminal the table is redrawn in place; in a log each cycle is appended.
            if (intervalMs !== undefined && io.isTTY) io.stdout('\x1b[2J\x1b[H');
            else if (cycle > 0) io.stdout('\n');
            if (intervalMs !== undefined) io.stdout(`# ${report.generatedAt}\n`);
            io.stdout(renderMonitorReport(report, { color }));
          }
          if (intervalMs === undefined || stop.signal.aborted) break;
          await sleep(intervalMs, undefined, { signal: stop.signal }).catch(() => undefined);
          if (stop.signal.aborted) break;
        }
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      if (options.failOnUnhealthy && unhealthy > 0) throw new CliExit(1);
    });
}
