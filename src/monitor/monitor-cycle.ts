import { readRegistry } from '../registry/registry-file.js';
import { workspacePaths } from '../layout.js';
import type { FederationConfig } from '../schema/config.js';
import { META } from '../schema/common.js';
import { readCollectorState } from '../telemetry/collector-state.js';
import { recordMonitorCycle } from '../telemetry/fed-metrics.js';
import { otlpMetricsUrl } from '../telemetry/metrics-export.js';
import { deadlineTable } from '../signals/delivery/deadlines.js';
import { FileDeliveryFactStore } from '../signals/delivery/delivery-fact-store.js';
import { findStuckSignals } from '../signals/delivery/stuck-signals.js';
import { takeCensus, type BoxCensus } from './box-census.js';
import type { BoxCounts, MonitorReport, TeamReport, TelemetryReport } from './monitor-report.js';
import { teamReport } from './team-health.js';

export const DEFAULT_STALE_AFTER_MINUTES = 10;

export interface MonitorOptions {
  config: FederationConfig;
  /** Health check: a working lifecycle must have changed within this many minutes (default 10, spec §8). */
  staleAfterMinutes?: number;
  now?: Date;
}

interface Workspace {
  id: string;
  location: string;
  inbox: BoxCensus;
  outbox: BoxCensus;
}

/**
 * Who has acknowledged what, across every inbox: signal file name → whether each inbox copy of that name
 * is acknowledged. A sent signal's copy in the recipient's inbox normally has the same name as the
 * sender's outbox copy, so an outbox signal's acknowledgment is found without reading its body.
 */
function ackIndex(workspaces: readonly Workspace[]): Map<string, boolean[]> {
  const index = new Map<string, boolean[]>();
  for (const ws of workspaces) {
    for (const name of ws.inbox.signals) {
      const acked = !ws.inbox.unacknowledged.has(name);
      const list = index.get(name);
      if (list) list.push(acked);
      else index.set(name, [acked]);
    }
  }
  return index;
}

function outboxCounts(outbox: BoxCensus, index: Map<string, boolean[]>): BoxCounts {
  // A name found in no inbox (or in several, not all acknowledged) counts as unacknowledged: the monitor
  // would rather over-report pending work than hide it.
  const unacknowledged = outbox.signals.filter((name) => !(index.get(name)?.every(Boolean) ?? false)).length;
  return { total: outbox.signals.length, unacknowledged };
}

const counts = (census: BoxCensus): BoxCounts => ({ total: census.signals.length, unacknowledged: census.unacknowledged.size });

/** The collector's state as the federation's commands last found it; a record that cannot be read is `unknown`. */
function telemetryReport(root: string, config: FederationConfig): TelemetryReport {
  if (!config.telemetry.enabled) return { enabled: false, url: null, collector: 'unknown', since: null, checkedAt: null, error: null };
  const url = otlpMetricsUrl(config.telemetry.collector.endpoint);
  let state;
  try {
    state = readCollectorState(root);
  } catch {
    state = undefined;
  }
  if (state?.url !== url) return { enabled: true, url, collector: 'unknown', since: null, checkedAt: null, error: null };
  return { enabled: true, url, collector: state.reachable ? 'reachable' : 'unreachable', since: state.since, checkedAt: state.checkedAt, error: state.error ?? null };
}

/** One monitoring cycle (spec §4.4 monitor script, §6 health checks) over every registered team. */
export function runMonitorCycle(root: string, options: MonitorOptions): MonitorReport {
  const now = options.now ?? new Date();
  const staleAfterMinutes = options.staleAfterMinutes ?? DEFAULT_STALE_AFTER_MINUTES;
  const registry = readRegistry(root);
  const census = (id: string, location: string): Workspace => {
    const paths = workspacePaths(location);
    return { id, location, inbox: takeCensus(paths.inbox), outbox: takeCensus(paths.outbox) };
  };
  const meta = census(META, root);
  const teams = registry.teams.map((team) => census(team.domainId, team.location));
  const index = ackIndex([meta, ...teams]);
  const inboxCensus = new Map([meta, ...teams].map((ws) => [workspacePaths(ws.location).inbox, ws.inbox]));

  const reports: TeamReport[] = registry.teams.map((team, i) =>
    teamReport(team, {
      config: options.config,
      now,
      staleAfterMs: staleAfterMinutes * 60_000,
      inbox: counts(teams[i]!.inbox),
      outbox: outboxCounts(teams[i]!.outbox, index),
    }),
  );
  reports.sort((a, b) => Number(a.healthy) - Number(b.healthy) || a.team.localeCompare(b.team));
  const metaCounts = { inbox: counts(meta.inbox), outbox: outboxCounts(meta.outbox, index) };
  const unhealthy = reports.filter((r) => !r.healthy).length;
  recordMonitorCycle({ teams: reports.length, unhealthy });
  return {
    generatedAt: now.toISOString(),
    root,
    staleAfterMinutes,
    teams: reports,
    meta: metaCounts,
    totals: {
      teams: reports.length,
      healthy: reports.length - unhealthy,
      unhealthy,
      unacknowledged: metaCounts.inbox.unacknowledged + reports.reduce((sum, r) => sum + r.inbox.unacknowledged, 0),
    },
    stuckSignals: findStuckSignals(root, registry, new FileDeliveryFactStore(root), deadlineTable(options.config.signalDeadlines), now, (inbox) => {
      // The census listed every inbox already: its names serve again, without a second listing.
      const census = inboxCensus.get(inbox);
      return census?.signals.map((name) => ({ name, acknowledged: !census.unacknowledged.has(name) }));
    }),
    archivedSignals: 0,
    telemetry: telemetryReport(root, options.config),
  };
}
