import { renderTable } from '../../core/table.js';
import { networkSummary } from '../launch/supervise/network/network-log.js';
import { formatDuration } from '../monitor/render-monitor.js';
import type { RunsReport, RunRow } from './federation-runs.js';
import type { RunTotals } from './run-totals.js';

/** A value a run may not have reported: `-` when unknown, never 0. */
const known = (value: number | string | null): string => (value === null ? '-' : String(value));

export const usd = (amount: number): string => `$${amount.toFixed(4)}`;

/** A total cost, saying how many runs it leaves out: `$1.2000 (+2 runs without a reported cost)`. */
export function totalCost(totals: RunTotals): string {
  const without = totals.runsWithoutCost;
  const note = `${without} run${without === 1 ? '' : 's'} without a reported cost`;
  if (totals.costUsd === null) return without ? `- (${note})` : '-';
  return without ? `${usd(totals.costUsd)} (+${note})` : usd(totals.costUsd);
}

/** A team's runs in one line (`fed team show`): `3 runs, 12 turns, tokens 1200 in / 340 out / …, 5m, $0.4200`. */
export function describeTotals(totals: RunTotals): string {
  if (totals.runs === 0) return 'no runs yet';
  return [
    `${totals.runs} run${totals.runs === 1 ? '' : 's'}`,
    `${known(totals.turns)} turns`,
    `tokens ${known(totals.inputTokens)} in / ${known(totals.outputTokens)} out / ${known(totals.cacheReadTokens)} cache read / ${known(totals.cacheWriteTokens)} cache write`,
    formatDuration(totals.durationMs),
    totalCost(totals),
  ].join(', ');
}

const TOKEN_HEADERS = ['TURNS', 'INPUT', 'OUTPUT', 'CACHE READ', 'CACHE WRITE'];

function tokenCells(
  t: Pick<RunTotals, 'turns' | 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>,
) {
  return [t.turns, t.inputTokens, t.outputTokens, t.cacheReadTokens, t.cacheWriteTokens].map(known);
}

/** `fed runs`: one row per run, oldest first, then the totals per team and for the federation. */
export function renderRuns(report: RunsReport): string {
  if (report.runs.length === 0) return 'no agent runs yet; launch the teams: fed run\n';
  const runs = renderTable(
    ['TEAM', 'RUN', 'PRESET', 'MODEL', 'OUTCOME', ...TOKEN_HEADERS, 'DURATION', 'COST'],
    report.runs.map((r) => [
      teamLabel(r),
      r.runId,
      r.preset,
      known(r.model),
      r.outcome,
      ...tokenCells(r),
      formatDuration(r.durationMs),
      r.costUsd === null ? '-' : usd(r.costUsd),
    ]),
  );
  const totalRow = (name: string, t: RunTotals) => [
    name,
    String(t.runs),
    ...tokenCells(t),
    formatDuration(t.durationMs),
    totalCost(t),
  ];
  const totals = renderTable(
    ['TOTAL', 'RUNS', ...TOKEN_HEADERS, 'DURATION', 'COST'],
    [
      ...report.teams.filter((t) => t.runs > 0).map((t) => totalRow(teamLabel(t), t)),
      ...(report.teams.length > 1 ? [totalRow('(federation)', report.total)] : []),
    ],
  );
  return `${runs}\n${totals}${renderNetwork(report)}`;
}

/** A team as the tables name it: a removed one's runs still count, under its id and `(removed)`. */
const teamLabel = (t: Pick<RunRow, 'team' | 'removed'>): string => (t.removed ? `${t.team} (removed)` : t.team);

/** The network of each run a policy applied to, one line each, every refused host named in it. */
function renderNetwork(report: RunsReport): string {
  const lines = report.runs.flatMap((r) =>
    r.network ? [`  ${teamLabel(r)} ${r.runId}: ${networkSummary(r.network)}`] : [],
  );
  return lines.length ? `\nnetwork (sandboxed runs):\n${lines.join('\n')}\n` : '';
}
