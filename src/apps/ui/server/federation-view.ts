import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CorruptFileError, FedError } from '../../../core/errors.js';
import { federationPaths } from '../../../core/layout.js';
import { appliedPlanSchema } from '../../../core/schema/federation-plan.js';
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
    ...appliedPlan(fed.root),
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

/**
 * The plan `fed plan --apply` recorded; null when none was applied. One that cannot be read is said — the
 * file, what is wrong, how to fix it — never shown as no plan: applying a plan again rewrites it.
 */
function appliedPlan(root: string): Pick<FederationView, 'plan' | 'planError'> {
  try {
    return { plan: readJsonFile(federationPaths(root).plan, appliedPlanSchema) ?? null, planError: null };
  } catch (error) {
    if (!(error instanceof FedError)) throw error;
    const fix =
      'apply a plan again to rewrite it (fed plan --apply, or Apply on the Federation page), or restore it from a backup';
    // The corrupt file's own advice is for files fed never rewrites: this one, it does.
    const what = error instanceof CorruptFileError ? `${error.file} is corrupt: ${error.problem}` : error.message;
    return { plan: null, planError: `${what}; ${fix}` };
  }
}

function readReport(path: string): FederationView['report'] {
  if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return null;
  return { path, markdown: readFileSync(path, 'utf8') };
}
