import type { MonitorReport, TeamReport } from '../monitor/monitor-report.js';
import { formatDuration, healthReasons } from '../monitor/render-monitor.js';

/** At most this many team lines; chat messages are read on phones. */
const MAX_TEAM_LINES = 20;

function teamLine(team: TeamReport): string {
  const life = team.lifecycle;
  const state = life
    ? `${life.state}${life.inStateMs != null ? ` for ${formatDuration(life.inStateMs)}` : ''}`
    : 'no lifecycle';
  return `- ${team.team} (${team.archetype}, ${team.status}): ${state} — ${team.healthy ? 'ok' : healthReasons(team)}`;
}

/**
 * A monitoring cycle in a few lines for the chat channel (docs/design/spec.md §6: a status summary after every cycle):
 * the totals, then one line per team, unhealthy teams first (the report is sorted so).
 */
export function renderStatusSummary(report: MonitorReport): string {
  const { totals, meta } = report;
  const head =
    `monitor ${report.generatedAt}: ${totals.teams} team${totals.teams === 1 ? '' : 's'}, ${totals.healthy} healthy, ${totals.unhealthy} unhealthy; ` +
    `${totals.unacknowledged} unacknowledged signal${totals.unacknowledged === 1 ? '' : 's'} (meta: ${meta.inbox.unacknowledged})`;
  const lines = report.teams.slice(0, MAX_TEAM_LINES).map(teamLine);
  if (report.teams.length > MAX_TEAM_LINES)
    lines.push(`… and ${report.teams.length - MAX_TEAM_LINES} more (fed monitor shows them all)`);
  return [head, ...lines].join('\n');
}
