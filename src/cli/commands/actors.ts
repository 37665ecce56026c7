import type { Command } from 'commander';
import type { ConsumeResult } from '../../engine/actors/consume-inbox.js';
import { runActors } from '../../engine/actors/run-actors.js';
import { loadHooks } from '../../engine/hooks/load-hooks.js';
import { CliExit, federationContext, type CliIo } from '../io.js';
import { openInspection } from '../inspection.js';
import { Interrupt } from '../interrupt.js';
import { nonEmptyPath } from '../option-parsers.js';

function describe(result: ConsumeResult): string {
  const lines: string[] = [];
  for (const step of result.steps) {
    const line = step.line;
    if (!line) continue;
    const change =
      line.from === line.to ? `${line.event} (still ${line.to})` : `${line.from} → ${line.to} (${line.event})`;
    lines.push(`${result.team}: ${change}${step.outcome === 'ignored' ? ` — ${step.note}` : ''}`);
  }
  for (const q of result.quarantined) lines.push(`${result.team}: quarantined ${q.file}: ${q.reason}`);
  for (const path of result.restored)
    lines.push(`${result.team}: moved ${path} back from quarantine: it is a valid signal now`);
  if (result.deferred) lines.push(`${result.team}: ${result.deferred} signal(s) wait until the team resumes`);
  return lines.map((l) => `${l}\n`).join('');
}

export function registerActors(program: Command, io: CliIo): void {
  const actors = program
    .command('actors')
    .description('run the file-backed team actors that turn inbox signals into lifecycle events');
  actors
    .command('run')
    .description(
      'consume inbox signals of every active team (or --team): apply, persist, acknowledge; then watch until interrupted',
    )
    .option('--team <team>', 'only this team')
    .option('--once', 'process what is pending and exit instead of watching')
    .option('--inspect', 'serve the Stately inspector for the actors (prints the page URL)')
    .option('--inspect-log <file>', 'append xstate inspection events to <file> as JSON lines', nonEmptyPath('a file'))
    .option('--json', 'print one JSON object per consume (JSON lines)')
    .action(
      async (
        options: { team?: string; once?: boolean; json?: boolean; inspect?: boolean; inspectLog?: string },
        command: Command,
      ) => {
        const ctx = federationContext(command, io);
        const hooks = await loadHooks(ctx.root, ctx.config.config, 'actors run');
        const inspection = await openInspection(options, io);
        const stop = new Interrupt();
        // Teams that could not run: one another process runs, or one archived meanwhile, is fine; one whose
        // state or workspace is unusable is not.
        const unusable = new Map<string, number>();
        // The fine ones, named in the summary all the same: a team is there, it just was not run here now.
        const passedOver = new Map<string, string>();
        // Teams of a federation shared across machines that work elsewhere: their actors run there. Said
        // once, not at every rescan, and not a failure.
        const elsewhere = new Set<string>();
        try {
          const results = await runActors(ctx.fed, {
            team: options.team,
            once: options.once,
            signal: stop.signal,
            inspect: inspection.inspect,
            hooks,
            streamSteps: true,
            onResult: (result) => {
              io.stdout(options.json ? `${JSON.stringify(result)}\n` : describe(result));
              for (const warning of result.warnings) io.stderr(`warning: ${warning}\n`);
            },
            onSkip: (team, reason, error) => {
              if (error.code === 'TEAM_ELSEWHERE') {
                if (!elsewhere.has(team)) io.stderr(`note: not running ${team} here: ${reason}\n`);
                elsewhere.add(team);
                return;
              }
              io.stderr(`warning: skipping ${team} for now: ${reason}\n`);
              if (error.code !== 'TEAM_BUSY' && error.code !== 'TEAM_ARCHIVED') {
                unusable.set(team, error.refusal ? 2 : 1);
                passedOver.delete(team);
              } else {
                unusable.delete(team);
                passedOver.set(team, error.code === 'TEAM_BUSY' ? 'another process runs it' : 'archived meanwhile');
              }
            },
          });
          if (options.once && !options.json) {
            const ran = results.map((r) => `${r.team}: ${r.state}`);
            const notRun = [...unusable.keys()].map((team) => `${team}: not run (see the warning above)`);
            const skipped = [...passedOver].map(([team, why]) => `${team}: skipped (${why})`);
            const there = [...elsewhere].map((team) => `${team}: runs in another working directory`);
            const summary = [...ran, ...notRun, ...skipped, ...there].join(', ');
            io.stdout(
              summary ? `done — ${summary}\n` : 'no team to run (onboard one with: fed team onboard <domain>)\n',
            );
          }
          if (options.once && unusable.size > 0) throw new CliExit(Math.max(...unusable.values()));
        } finally {
          await inspection.stop();
          stop.dispose();
        }
      },
    );
}
