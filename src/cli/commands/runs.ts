import type { Command } from 'commander';
import { readFederationRuns } from '../../apps/runs/federation-runs.js';
import { renderRuns } from '../../apps/runs/render-runs.js';
import { readRunTranscript } from '../../apps/runs/run-transcript.js';
import { federationContext, printJson, type CliIo } from '../io.js';

export function registerRuns(program: Command, io: CliIo): void {
  const runs = program
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
  runs
    .command('show')
    .description(
      "print one run's transcript as its agent streamed it (or its prompt), also of a run another host ran (JetStream: read from the copy kept there)",
    )
    .argument('<run>', 'the run id (fed runs --json lists them)')
    .option('--team <team>', 'the team that ran it (default: whichever did)')
    .option('--prompt', 'print the prompt the run was given instead')
    .action(async (runId: string, _options: unknown, command: Command) => {
      const ctx = federationContext(command, io);
      // `--team` is `fed runs`'s own option too, which takes it wherever it stands: read from either.
      const { team, prompt } = command.optsWithGlobals<{ team?: string; prompt?: boolean }>();
      const { content } = await readRunTranscript(ctx.fed, runId, { team, prompt });
      io.stdout(content.toString('utf8'));
    });
}
