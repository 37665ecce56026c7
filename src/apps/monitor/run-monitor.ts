import { AgentHostChatChannel } from '../chat/agent-host-channel.js';
import type { ChatChannel } from '../chat/chat-channel.js';
import { signed } from '../chat/signature.js';
import { renderStatusSummary } from '../chat/status-summary.js';
import { FedError } from '../../core/errors.js';
import { parseDuration } from '../../core/schema/duration.js';
import { archiveSignals } from '../../engine/delivery/archive-signals.js';
import { alertStuckSignals } from '../../engine/delivery/alert-stuck-signals.js';
import { repeatEvery } from '../../infra/repeat.js';
import { runMonitorCycle, type MonitorOptions } from './monitor-cycle.js';
import type { MonitorReport } from './monitor-report.js';
import type { Federation } from '../../engine/context.js';
import type { LoadedHooks } from '../../engine/hooks/load-hooks.js';
import type { TeamLifecycle } from '../../engine/actors/lifecycle-types.js';
import { META } from '../../core/schema/common.js';
import { needsYou } from '../needs-you/needs-you.js';
import { notifyNeedsYou } from '../needs-you/notify-needs-you.js';

export interface RunMonitorOptions extends MonitorOptions {
  /** Repeat the cycle every this many ms until `signal` aborts (`fed monitor --watch`); once when undefined. */
  intervalMs?: number;
  signal?: AbortSignal;
  /** Environment of the chat agent host (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Told about every cycle as soon as it is done, before its summary goes to the chat channel. */
  onReport: (report: MonitorReport, cycle: number) => void;
  /** Told what went wrong on the side (a summary that could not be posted); the cycle stands. */
  onWarning?: (text: string) => void;
  /** Write signal alerts and archive moves without fsync (tests and benchmarks). */
  durable?: boolean;
  /** The hooks the command loaded (onNeedsYou). */
  hooks?: LoadedHooks;
}

/**
 * The monitor script (docs/design/spec.md §4.4): one monitoring cycle, or one every interval. With chatConfig, every
 * cycle's status summary is posted to the chat channel (docs/design/spec.md §6). Returns the last cycle's report.
 */
export async function runMonitor(fed: Federation, options: RunMonitorOptions): Promise<MonitorReport> {
  const { root } = fed;
  const post = options.config.chatConfig ? summaryPoster(root, options) : undefined;
  // Kept across cycles: a second read of meta's inbox reads only what changed.
  const metaInbox = fed.backend.signals.inbox({ id: META, entry: undefined });
  // Kept across cycles too: a team's lifecycle is read again only once it changed. A single cycle keeps
  // none: holding every team's lifecycle to the end of the cycle only makes the young generation's
  // collections copy and promote them.
  const known = options.known ?? (options.intervalMs === undefined ? undefined : new Map<string, TeamLifecycle>());
  let last: MonitorReport | undefined;
  await repeatEvery(options.intervalMs, options.signal, async (cycle) => {
    const now = options.now ?? fed.now();
    const report = await runMonitorCycle(fed, { ...options, now, known });
    last = report;
    await actOnSignals(fed, report, now, options);
    options.onReport(report, cycle);
    await post?.(report);
    // After the alerts: an escalation sent this cycle is told in this cycle.
    const told = await notifyNeedsYou(fed, async () => (await needsYou(fed, { metaInbox })).items, {
      hooks: options.hooks,
      signal: options.signal,
      durable: options.durable,
    });
    for (const warning of told.warnings) options.onWarning?.(warning);
  });
  return last!;
}

/**
 * What a cycle does besides observing: one alert per stuck signal (to meta when overdue, to the sender
 * when undeliverable), and, with config `signalArchive`, archiving what is done. Alerts go out before the
 * report is shown, so the report says which were sent.
 */
async function actOnSignals(
  fed: Federation,
  report: MonitorReport,
  now: Date,
  options: RunMonitorOptions,
): Promise<void> {
  const write = { durable: options.durable };
  const warnings = await alertStuckSignals(fed, report.stuckSignals, { ...write, now: () => now });
  for (const warning of warnings) options.onWarning?.(warning);
  const archive = options.config.signalArchive;
  if (!archive) return;
  try {
    const boxes = await archiveSignals(fed, { olderThanMs: parseDuration(archive.olderThan)! }, { ...write, now });
    report.archivedSignals = boxes.reduce((sum, box) => sum + box.archived, 0);
    for (const box of boxes)
      if (box.skipped !== undefined)
        options.onWarning?.(`signals of ${box.team} ${box.box} not archived: ${box.skipped}`);
  } catch (error) {
    // A full or read-only disk stops the archiving, never the monitoring.
    if (!(error instanceof FedError) && !(error as NodeJS.ErrnoException).code) throw error;
    options.onWarning?.(`signals were not archived: ${(error as Error).message}`);
  }
}

/**
 * The channel is made on first use, so a broken chat command, like an agent host that fails, costs a
 * warning and never the cycle.
 */
function summaryPoster(root: string, options: RunMonitorOptions): (report: MonitorReport) => Promise<void> {
  const { config } = options;
  let channel: ChatChannel | undefined;
  return async (report) => {
    try {
      channel ??= new AgentHostChatChannel({ root, config, env: options.env ?? process.env, signal: options.signal });
      await channel.post(signed(renderStatusSummary(report), config.federationName));
    } catch (error) {
      options.onWarning?.(`the status summary was not posted to the chat channel: ${(error as Error).message}`);
    }
  };
}
