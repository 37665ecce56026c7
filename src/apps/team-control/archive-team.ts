import type { Federation } from '../../engine/context.js';
import { setTeamStatus } from '../../engine/actors/team-status-command.js';
import { reportUndeliverableSignals } from '../../engine/delivery/alert-stuck-signals.js';
import { loadConfig } from '../../infra/config/load-config.js';
import { archivedSchedulesWarning } from './action-messages.js';

export interface ArchivedTeam {
  team: string;
  from: string;
  to: string;
  /** The signals it had not acknowledged that went back to their senders as non-delivery alerts. */
  undeliverable: string[];
  /** What could not be done about them (an alert not sent), to show beside the result. */
  warnings: string[];
}

/**
 * `fed team archive` (and the dashboard's Archive): the team archived for good — never launched again,
 * the step before `fed team remove` — and what it never took sent back to its senders now, instead of at
 * the monitor's next cycle (once either way). The schedules that still send to it are warned of: `fed
 * serve` never sends them now.
 */
export async function archiveTeam(fed: Federation, name: string): Promise<ArchivedTeam> {
  const change = await setTeamStatus(fed, name, { type: 'ARCHIVE' });
  const team = change.team.domainId;
  const returned = await reportUndeliverableSignals(fed, team);
  return {
    team,
    from: change.from,
    to: change.to,
    undeliverable: returned.signals.filter((s) => s.alertId !== null).map((s) => s.id),
    warnings: [...returned.warnings, ...schedulesWarning(fed, team)],
  };
}

function schedulesWarning(fed: Federation, team: string): string[] {
  const ids = schedulesNow(fed)
    .filter((schedule) => schedule.to === team)
    .map((schedule) => schedule.id);
  return ids.length ? [archivedSchedulesWarning(team, ids)] : [];
}

/**
 * The schedules as federate.config.json says now: a long-running server (the dashboard) loaded it long
 * ago, and its Steer page or a person may have changed them since. A config that no longer loads keeps
 * the ones loaded: the team is archived either way, and the warning is advice.
 */
function schedulesNow(fed: Federation) {
  try {
    return loadConfig(fed.root, fed.env).config.schedules ?? [];
  } catch {
    return fed.config.schedules ?? [];
  }
}
