import type { Command } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentHostChatChannel } from '../../chat/agent-host-channel.js';
import type { ChatChannel } from '../../chat/chat-channel.js';
import { signed } from '../../chat/signature.js';
import { renderStatusSummary } from '../../chat/status-summary.js';
import { loadHooks } from '../../hooks/load-hooks.js';
import { runMonitorCycle, DEFAULT_STALE_AFTER_MINUTES } from '../../monitor/monitor-cycle.js';
import type { MonitorReport } from '../../monitor/monitor-report.js';
import { renderMonitorReport } from '../../monitor/render-monitor.js';
import type { FederationConfig } from '../../schema/config.js';
import { CliExit, federationContext, printJson, type CliIo } from '../io.js';
import { Interrupt } from '../interrupt.js';
import { positiveNumber } from '../option-parsers.js';

export function registerMonitor(program: Command, io: CliIo): void {
  program
    .command('monitor')
    .description('run a monitoring cycle: every team with its lifecycle, signals, deliverable and health (the monitor script)')
    .option('--json', 'print the cycle as one JSON object')
    .option('--watch [seconds]', 'repeat the cycle every <seconds> (default 10) until interrupted', positiveNumber())
    .option('--stale-after <minutes>', `a working lifecycle not updated for this long is unhealthy (default ${DEFAULT_STALE_AFTER_MINUTES})`, positiveNumber())
    .option('--fail-on-unhealthy', 'exit 1 when any team is unhealthy')
    .action(async (options: { json?: boolean; watch?: number | true; staleAfter?: number; failOnUnhealthy?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const config = ctx.config.config;
      await loadHooks(ctx.root, config, 'monitor');
      const color = io.isTTY && !io.env.NO_COLOR;
      const intervalMs = options.watch === undefined ? undefined : (options.watch === true ? 10 : options.watch) * 1000;
      const stop = new Interrupt();
      const postSummary = config.chatConfig ? summaryPoster(ctx.root, config, io, stop.signal) : undefined;
      let unhealthy = 0;
      try {
        for (let cycle = 0; ; cycle++) {
          const report = runMonitorCycle(ctx.root, { config, staleAfterMinutes: options.staleAfter });
          unhealthy = report.totals.unhealthy;
          if (options.json) printJson(io, report);
          else {
            // On a terminal the table is redrawn in place; in a log each cycle is appended.
            if (intervalMs !== undefined && io.isTTY) io.stdout('\x1b[2J\x1b[H');
            else if (cycle > 0) io.stdout('\n');
            if (intervalMs !== undefined) io.stdout(`# ${report.generatedAt}\n`);
            io.stdout(renderMonitorReport(report, { color }));
          }
          await postSummary?.(report);
          if (intervalMs === undefined || stop.signal.aborted) break;
          await sleep(intervalMs, undefined, { signal: stop.signal }).catch(() => undefined);
          if (stop.signal.aborted) break;
        }
      } finally {
        stop.dispose();
      }
      if (options.failOnUnhealthy && unhealthy > 0) throw new CliExit(1);
    });
}

/**
 * With chatConfig, every cycle's summary goes to the chat channel (spec §6). The channel is made on first
 * use, so a broken chat command, like an agent host that fails, costs a warning and never the cycle.
 */
function summaryPoster(root: string, config: FederationConfig, io: CliIo, signal: AbortSignal): (report: MonitorReport) => Promise<void> {
  let channel: ChatChannel | undefined;
  return async (report) => {
    try {
      channel ??= new AgentHostChatChannel({ root, config, env: io.env, signal });
      await channel.post(signed(renderStatusSummary(report), config.federationName));
    } catch (error) {
      io.stderr(`warning: the status summary was not posted to the chat channel: ${(error as Error).message}\n`);
    }
  };
}
