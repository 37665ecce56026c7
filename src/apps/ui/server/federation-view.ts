import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { federationPaths } from '../../../core/layout.js';
import { appliedPlanSchema, type AppliedPlan } from '../../../core/schema/federation-plan.js';
import type { Federation } from '../../../engine/context.js';
import { readJsonFile } from '../../../infra/fs/read-json-file.js';
import { telemetryReport } from '../../monitor/monitor-cycle.js';
import { readFederationRuns } from '../../runs/federation-runs.js';
import { listHosts } from '../../hosts/list-hosts.js';
import type { FederationView } from '../api-types.js';
import type { UiViews } from './ui-views.js';

/** The federation as a whole: its plan and report, health (from the cached board), telemetry, runs and hosts. */
export async function federationView(fed: Federation, views: UiViews): Promise<FederationView> {
  const board = await views.board();
  const stuck = await views.stuckSignals();
  const needs = await views.needsYou();
  const runs = await readFederationRuns(fed);
  const telemetry = telemetryReport(fed.root, fed.config);
  const hosts = await listHosts(fed);
  return {
    plan: appliedPlan(fed.root),
    report: readReport(join(fed.root, fed.config.federationReport)),
    health: {
      teams: board.totals.teams,
      healthy: board.totals.healthy,
      unhealthy: board.totals.unhealthy,
      stuckSignals: stuck.count,
      problems: needs.problems,
    },
    telemetry: {
      enabled: telemetry.enabled,
      url: telemetry.url,
      collector: telemetry.collector,
      since: telemetry.since,
      error: telemetry.error,
    },
    runs: { total: runs.total.runs, costUsd: runs.total.costUsd, unmeasured: runs.total.runsWithoutCost },
    hosts: {
      shared: hosts.shared,
      list: hosts.shared
        ? hosts.hosts.map(({ name, state, heardAt, capacity, running, teams, version }) => ({
            name,
            state,
            heardAt,
            capacity,
            running,
            teams,
            version,
          }))
        : [],
    },
  };
}

/** The plan `fed plan --apply` recorded; null when none was applied (or the file is not a plan). */
function appliedPlan(root: string): AppliedPlan | null {
  try {
    return readJsonFile(federationPaths(root).plan, appliedPlanSchema) ?? null;
  } catch {
    return null;
  }
}

function readReport(path: string): FederationView['report'] {
  if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return null;
  return { path, markdown: readFileSync(path, 'utf8') };
}
