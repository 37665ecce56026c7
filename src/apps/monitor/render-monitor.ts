import { displayLine, displayLineWithPointer } from '../../core/display-line.js';
import { renderTable } from '../../core/table.js';
import { escapeControls } from '../../core/terminal-text.js';
import type { MonitorReport, TeamReport, TelemetryReport } from './monitor-report.js';

/** `12s`, `5m`, `3h 20m`, `2d 4h`: how long something has lasted, for a table cell. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h}h ${m % 60}m` : `${h}h`;
  return h % 24 ? `${Math.floor(h / 24)}d ${h % 24}h` : `${Math.floor(h / 24)}d`;
}

const paint = (code: number) => (text: string) => `\x1b[${code}m${text}\x1b[0m`;
const RED = paint(31);
const GREEN = paint(32);

function row(team: TeamReport, now: number): string[] {
  const life = team.lifecycle;
  return [
    team.team,
    team.archetype,
    team.status,
    life ? life.state : '-',
    life?.inStateMs != null ? formatDuration(life.inStateMs) : '-',
    life ? `${formatDuration(now - Date.parse(life.updatedAt))} ago` : '-',
    `${team.inbox.total}/${team.inbox.unacknowledged}`,
    `${team.outbox.total}/${team.outbox.unacknowledged}`,
    team.deliverable ? (team.deliverable.exists ? `${team.deliverable.sizeBytes} B` : 'none') : '-',
    team.healthy ? 'ok' : healthReasons(team),
  ];
}

/** How much of an unhealthy team's reasons a line shows: a long failure reason would break the table (or a chat message). */
export const REASON_CHARS = 80;

/** Why a team is unhealthy, on one line of at most REASON_CHARS characters, saying where the whole text is when it is cut. */
export function healthReasons(team: TeamReport): string {
  return displayLineWithPointer(team.reasons.join('; '), REASON_CHARS, 'fed monitor --json');
}

function telemetryLine(telemetry: TelemetryReport, now: number): string {
  if (!telemetry.enabled) return 'telemetry: off\n';
  const state =
    telemetry.collector === 'unknown'
      ? 'no metrics sent yet'
      : `${telemetry.collector} for ${formatDuration(now - Date.parse(telemetry.since!))}${telemetry.error ? ` (${telemetry.error})` : ''}`;
  return `telemetry: ${telemetry.url}: ${state}\n`;
}

/**
 * The cycle as an aligned table, unhealthy teams first (the report is sorted so), then meta and totals.
 * Colour marks health only when asked (a TTY without NO_COLOR); padding is computed on the plain text so
 * columns stay aligned either way. The text is escaped (escapeControls) with only fed's colours left as
 * they are, so it is written to the terminal unchanged.
 */
export function renderMonitorReport(report: MonitorReport, options: { color?: boolean } = {}): string {
  const now = Date.parse(report.generatedAt);
  const header = [
    'TEAM',
    'ARCHETYPE',
    'STATUS',
    'STATE',
    'IN STATE',
    'UPDATED',
    'INBOX/UNACK',
    'OUTBOX/UNACK',
    'DELIVERABLE',
    'HEALTH',
  ];
  // Escaped before it is painted: a report coloured for a terminal is written there as it is.
  let table = escapeControls(
    report.teams.length
      ? renderTable(
          header,
          report.teams.map((t) => row(t, now)),
        )
      : 'no teams registered\n',
  );
  if (options.color) {
    table = table
      .split('\n')
      .map((line, i) => {
        const team = i > 0 ? report.teams[i - 1] : undefined;
        return team ? (team.healthy ? line.replace(/ok$/, GREEN('ok')) : RED(line)) : line;
      })
      .join('\n');
  }
  const { totals, meta } = report;
  const summary =
    `meta: inbox ${meta.inbox.total} (${meta.inbox.unacknowledged} unacknowledged), outbox ${meta.outbox.total} (${meta.outbox.unacknowledged} unacknowledged)\n` +
    `teams: ${totals.teams}, healthy ${totals.healthy}, unhealthy ${totals.unhealthy}; unacknowledged signals: ${totals.unacknowledged}\n`;
  return `${table}\n${escapeControls(`${summary}${stuckLines(report)}${telemetryLine(report.telemetry, now)}`)}`;
}

/** One line per overdue or undeliverable signal, with the alert sent about it. */
function stuckLines(report: MonitorReport): string {
  if (report.stuckSignals.length === 0) return '';
  const lines = report.stuckSignals.map((s) => {
    const why = s.state === 'expired' ? `due ${s.dueAt}` : s.reason;
    const told = s.alertId ? `alert ${s.alertId} to ${s.state === 'expired' ? 'meta' : s.from}` : 'no alert sent';
    return `  ${s.state}  ${s.type} ${s.from} → ${s.to} "${displayLine(s.subject, Number.POSITIVE_INFINITY)}" (${s.id}), ${why}; ${told}\n`;
  });
  return `stuck signals: ${report.stuckSignals.length}\n${lines.join('')}`;
}
