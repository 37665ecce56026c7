import { findTeam } from '../../core/find-team.js';
import type { Registry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import type { PendingFinding } from '../../ports/doctor-finding.js';
import { federationPaths } from '../../core/layout.js';
import { cronOf, nextTick } from '../schedule/schedule-triggers.js';
import { teamProblem } from '../schedule/schedules.js';

/**
 * The config's schedules `fed serve` would never send: a cron expression of days that do not exist (30
 * February — `fed schedule add` refuses one, a config written by hand is not searched for it at every
 * load: it costs a search of the calendar), or a team the registry does not hold or has archived (the
 * server only warns, once). Never repaired: the config is the user's.
 */
export function checkSchedules(fed: Federation, registry: Registry): PendingFinding[] {
  const path = federationPaths(fed.root).config;
  const findings: PendingFinding[] = [];
  for (const schedule of fed.config.schedules ?? []) {
    const replace = `fed schedule remove ${schedule.id}, then add it again`;
    if (schedule.cron !== undefined && nextTick(cronOf(schedule), fed.now()) === undefined)
      findings.push({
        check: 'schedule',
        path,
        problem: `schedule "${schedule.id}" never fires: its cron expression "${schedule.cron}" names no day that exists (like 30 February)`,
        fix: `${replace} with a cron expression that fires, like "0 3 * * 1-5"`,
      });
    const problem = teamProblem(registry, schedule);
    if (problem)
      findings.push({
        check: 'schedule',
        path,
        team: findTeam(registry, schedule.to)?.domainId,
        problem: `schedule "${schedule.id}" is never sent by fed serve: ${problem}`,
        fix: `${replace} to a team of the federation (fed team list)`,
      });
  }
  return findings;
}
