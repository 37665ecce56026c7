import type { Federation } from '../../../engine/context.js';
import { runMonitorCycle } from '../../monitor/monitor-cycle.js';
import type { BoxCounts, MonitorReport } from '../../monitor/monitor-report.js';
import { readFederationRuns, type RunRow } from '../../runs/federation-runs.js';
import type { RunTotals } from '../../runs/run-totals.js';

/** One team in meta's status (`fed_status`): the monitor's line of it, with its last run and what its runs cost. */
export interface TeamStatusLine {
  team: string;
  archetype: string;
  /** Registry status: active, paused, archived. */
  status: string;
  /** The lifecycle's state, or null for an archetype without a machine. */
  state: string | null;
  mission: string | null;
  healthy: boolean;
  /** Why the team is unhealthy (empty when healthy). */
  reasons: string[];
  inbox: BoxCounts;
  lastRun: Pick<RunRow, 'runId' | 'outcome' | 'endedAt' | 'costUsd'> | null;
  /** The team's runs added up, as `fed runs` totals them (a cost is null when no run reported one). */
  runs: Pick<RunTotals, 'runs' | 'costUsd' | 'runsWithoutCost'>;
}

export interface FederationStatus {
  generatedAt: string;
  /** Unhealthy teams first, then by id (the monitor's order). */
  teams: TeamStatusLine[];
  meta: MonitorReport['meta'];
  totals: MonitorReport['totals'] & Pick<RunTotals, 'costUsd' | 'runsWithoutCost'> & { runs: number };
}

/**
 * Every team at a glance, for a person's MCP client: one monitoring cycle (`fed monitor --json`, which also
 * finishes a run a dead launcher left, as that command does) joined with the runs' totals (`fed runs --json`).
 */
export async function federationStatus(fed: Federation): Promise<FederationStatus> {
  const report = await runMonitorCycle(fed, { config: fed.config });
  const runs = await readFederationRuns(fed);
  const teams = report.teams.map((line): TeamStatusLine => {
    // A removed team's runs under the same id are another team's: they count in the totals only.
    const last = runs.runs.findLast((run) => run.team === line.team && !run.removed);
    const totals = runs.teams.find((t) => t.team === line.team && !t.removed);
    return {
      team: line.team,
      archetype: line.archetype,
      status: line.status,
      state: line.lifecycle?.state ?? null,
      mission: line.lifecycle?.mission ?? null,
      healthy: line.healthy,
      reasons: line.reasons,
      inbox: line.inbox,
      lastRun: last ? { runId: last.runId, outcome: last.outcome, endedAt: last.endedAt, costUsd: last.costUsd } : null,
      runs: {
        runs: totals?.runs ?? 0,
        costUsd: totals?.costUsd ?? null,
        runsWithoutCost: totals?.runsWithoutCost ?? 0,
      },
    };
  });
  return {
    generatedAt: report.generatedAt,
    teams,
    meta: report.meta,
    totals: {
      ...report.totals,
      runs: runs.total.runs,
      costUsd: runs.total.costUsd,
      runsWithoutCost: runs.total.runsWithoutCost,
    },
  };
}
