import type { Command } from 'commander';
import {
  applyPlan,
  DEFAULT_PLAN_TEAMS,
  describeApplied,
  proposePlan,
  type AppliedTeam,
  type FederationPlan,
} from '../../apps/plan/plan.js';
import { renderTable } from '../../core/table.js';
import { federationContext, printJson, type CliIo } from '../io.js';
import { positiveInteger } from '../option-parsers.js';

export function registerPlan(program: Command, io: CliIo): void {
  program
    .command('plan')
    .description(
      'propose deliverable teams, one per area of the codebase (packages or top-level folders), each with a mission',
    )
    .option('--teams <n>', `at most this many teams (default ${DEFAULT_PLAN_TEAMS})`, positiveInteger('teams'))
    .option('--apply', 'onboard the planned teams and send their mission directives (re-running changes nothing)')
    .option('--json', 'print the plan (and what --apply did) as JSON')
    .action(async (options: { teams?: number; apply?: boolean; json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const plan = proposePlan(ctx.fed, { teams: options.teams });
      const applied = options.apply ? await applyPlan(ctx.fed, plan) : undefined;
      if (options.json) return printJson(io, { ...plan, ...(applied ? { applied } : {}) });
      io.stdout(renderPlan(plan, applied, options.teams));
    });
}

function renderPlan(plan: FederationPlan, applied: AppliedTeam[] | undefined, teams: number | undefined): string {
  const basis = plan.basis === 'packages' ? 'its packages' : 'its top-level source folders';
  const done = new Map(applied?.map((a) => [a.team, a]));
  const table = renderTable(
    ['TEAM', 'AREAS', 'FILES', 'LINES', 'MISSION', ...(applied ? ['APPLIED'] : [])],
    plan.teams.map((t) => [
      t.team,
      t.areas.map((a) => a.path).join(', '),
      String(t.files),
      String(t.lines),
      t.mission.subject,
      ...(applied ? [describeApplied(done.get(t.team)!)] : []),
    ]),
  );
  // The hint applies the plan just shown: the same options give the same plan.
  const next = applied
    ? 'run them: fed run'
    : `apply it: fed plan${teams === undefined ? '' : ` --teams ${teams}`} --apply`;
  return `plan for ${plan.project} (${plan.teams.length} team${plan.teams.length === 1 ? '' : 's'}, split by ${basis}):\n${table}\n${next}\n`;
}
