import type { FederationConfig } from '../../core/schema/config.js';
import { META } from '../../core/schema/common.js';
import { InvalidInputError } from '../../core/errors.js';
import { readCollectorState } from '../../infra/telemetry/collector-state.js';
import { recordMonitorCycle } from '../../infra/telemetry/fed-metrics.js';
import { otlpMetricsUrl } from '../../infra/telemetry/metrics-export.js';
import { redactUrl } from '../../core/redact-url.js';
import { deadlineTable, type NextDue } from '../../core/deadlines.js';
import { everyParty } from '../../core/resolve-party.js';
import { findStuckSignals } from '../../engine/delivery/stuck-signals.js';
import type { StuckCandidate } from '../../ports/stuck-signal-census.js';
import type { Registry } from '../../core/schema/registry.js';
import type { CurrentRun } from '../../core/schema/launch-run.js';
import type { MonitorReport, StuckSignal, TeamReport, TelemetryReport } from './monitor-report.js';
import { teamReport } from './team-health.js';
import { finishOrphanedRun } from '../launch/prepare/finish-orphaned-run.js';
import type { Federation } from '../../engine/context.js';
import type { TeamLifecycle } from '../../engine/actors/lifecycle-types.js';

/** The earliest deadline ahead a stuck search saw (the dashboard's clock reads no sooner). */
export type { NextDue };

export const DEFAULT_STALE_AFTER_MINUTES = 10;

export interface MonitorOptions {
  config: FederationConfig;
  /** Health check: a working lifecycle must have changed within this many minutes (default 10, docs/design/spec.md §8). */
  staleAfterMinutes?: number;
  now?: Date;
  /**
   * Kept by a process that runs cycle after cycle (`fed serve`, `fed monitor --watch`): the lifecycles the
   * last cycle loaded, so an unchanged one is not read, validated and restored again (with a thousand idle
   * teams, most of a cycle's work).
   */
  known?: Map<string, TeamLifecycle>;
}

/**
 * The collector's state as the federation's commands last found it; a record that cannot be read is `unknown`.
 * The URL is named, and recorded (collector-state.ts), without its credentials.
 */
export function telemetryReport(root: string, config: FederationConfig): TelemetryReport {
  if (!config.telemetry.enabled)
    return { enabled: false, url: null, collector: 'unknown', since: null, checkedAt: null, error: null };
  const url = redactUrl(otlpMetricsUrl(config.telemetry.collector.endpoint));
  let state;
  try {
    state = readCollectorState(root);
  } catch {
    state = undefined;
  }
  if (state?.url !== url)
    return { enabled: true, url, collector: 'unknown', since: null, checkedAt: null, error: null };
  return {
    enabled: true,
    url,
    collector: state.reachable ? 'reachable' : 'unreachable',
    since: state.since,
    checkedAt: state.checkedAt,
    error: state.error ?? null,
  };
}

/**
 * Live signals past their deadline or in an archived team's inbox, oldest first: read only (the cycle's
 * alerts about them are sent elsewhere).
 */
export async function stuckSignals(
  fed: Federation,
  registry: Registry,
  now: Date,
  config: FederationConfig = fed.config,
  /** The candidates the cycle's census chose (a transport with a stuck-signal census). */
  chosen?: () => Promise<StuckCandidate[]>,
  /** Given: set to the earliest deadline still ahead (the dashboard reads again no sooner). */
  next?: NextDue,
): Promise<StuckSignal[]> {
  return findStuckSignals(fed.backend, registry, deadlineTable(config.signalDeadlines), now, chosen, next);
}

/**
 * One monitoring cycle (docs/design/spec.md §4.4 monitor script, §6 health checks) over every registered team;
 * it finishes the completed runs dead launchers left (finish-orphaned-run.ts).
 */
export async function runMonitorCycle(fed: Federation, options: MonitorOptions): Promise<MonitorReport> {
  const { root } = fed;
  const now = options.now ?? fed.now();
  const staleAfterMinutes = options.staleAfterMinutes ?? DEFAULT_STALE_AFTER_MINUTES;
  const { backend } = fed;
  const registry = await backend.registry.read();
  // A completed run a dead launcher left is finished first (its report to meta, once), so the teams and
  // meta's inbox are counted as they then are; one that cannot be finished now keeps its team unhealthy.
  const unfinishedRuns = new Map<string, string>();
  // Each team's run in progress as finishOrphanedRun left it, for its health check.
  const runs = new Map<string, { current: CurrentRun | undefined }>();
  for (const team of registry.teams) {
    await finishOrphanedRun(fed, team).then(
      (current) => runs.set(team.domainId, { current }),
      (error: unknown) =>
        unfinishedRuns.set(
          team.domainId,
          `the run its dead launcher left could not be finished (retried at the next cycle): ${(error as Error).message}`,
        ),
    );
  }
  const parties = everyParty(registry.teams);
  // A transport with a stuck-signal census chooses the candidates as it counts: one look at each inbox.
  const { stuckCensus } = backend.signals;
  const { census, candidates } = stuckCensus.supported
    ? await stuckCensus.censusWithCandidates(parties, { deadlines: deadlineTable(options.config.signalDeadlines), now })
    : { census: await backend.signals.census(parties), candidates: undefined };

  const reports: TeamReport[] = [];
  for (const team of registry.teams) {
    const counts = census.get(team.domainId)!;
    const report = await teamReport(team, {
      fed,
      config: options.config,
      now,
      staleAfterMs: staleAfterMinutes * 60_000,
      inbox: counts.inbox,
      outbox: counts.outbox,
      unreadableBoxes: counts.unreadable,
      lifecycles: backend.lifecycles,
      known: options.known,
      run: runs.get(team.domainId),
    });
    const unfinished = unfinishedRuns.get(team.domainId);
    if (unfinished) {
      report.reasons.push(unfinished);
      report.healthy = false;
    }
    reports.push(report);
  }
  // Team ids are slugs of ASCII lowercase letters, digits and hyphens, sorted by code point — the order
  // of the root and English collations, the same in every locale — without ICU, whose first use costs a
  // short command ~5 ms.
  reports.sort((a, b) => Number(a.healthy) - Number(b.healthy) || (a.team < b.team ? -1 : a.team > b.team ? 1 : 0));
  const metaCounts = census.get(META)!;
  // Meta's boxes are the federation's own, not a team's to be reported unhealthy: as every command reading them, the cycle stops.
  if (metaCounts.unreadable !== undefined) throw new InvalidInputError(metaCounts.unreadable);
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
    stuckSignals: await stuckSignals(fed, registry, now, options.config, candidates),
    archivedSignals: 0,
    telemetry: telemetryReport(root, options.config),
  };
}
