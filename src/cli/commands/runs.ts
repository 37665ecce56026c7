import type { Command } from 'commander';
import { readFederationRuns } from '../../apps/runs/federation-runs.js';
import { renderRuns } from '../../apps/runs/render-runs.js';
import { federationContext, printJson, type CliIo } from '../io.js';

export function registerRuns(program: Command, io: CliIo): void {
  program
    .command('runs')
    .description(
      'every agent run of every team (or one): preset, model, outcome, turns, tokens, cost and duration, with totals per team and for the federation',
    )
    .option('--team <team>', 'only this team')
    .option('--json', 'print {runs, teams, total} as JSON')
    .action(async (options: { team?: string; json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const report = await readFederationRuns(ctx.fed, { team: options.team });
      if (options.json) return printJson(io, report);
      io.stdout(renderRuns(report));
    });
}
