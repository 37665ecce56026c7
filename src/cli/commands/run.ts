import type { Command } from 'commander';
import { loadHooks } from '../../engine/hooks/load-hooks.js';
import { runFederation, type RunSummary, type TeamRun } from '../../apps/run/run-federation.js';
import { CliExit, federationContext, printJson, type CliIo } from '../io.js';
import { openInspection } from '../inspection.js';
import { Interrupt } from '../interrupt.js';
import { positiveInteger, positiveNumber } from '../option-parsers.js';
import { LiveLines } from '../live-lines.js';

export function registerRun(program: Command, io: CliIo): void {
  program
    .command('run')
    .description(
      'launch every team that has a mission and is not finished (or the named ones), several at once, each as fed launch does',
    )
    .option('--team <team...>', 'only these teams (repeatable)')
    .option(
      '--parallel <n>',
      'at most this many teams at once (default: the number of cores)',
      positiveInteger('teams'),
    )
    .option('--agent <command>', 'agent command (default: agentCommand from federate.config.json, fed-agent)')
    .option(
      '--timeout <seconds>',
      "stop a team's hung agent after this long and pause the team",
      positiveNumber('seconds'),
    )
    .option('--inspect-log <file>', 'append xstate inspection events of every team to <file> as JSON lines')
    .option('--json', 'print one summary object at the end')
    .action(
      async (
        options: {
          team?: string[];
          parallel?: number;
          agent?: string;
          timeout?: number;
          inspectLog?: string;
          json?: boolean;
        },
        command: Command,
      ) => {
        const ctx = federationContext(command, io);
        const hooks = await loadHooks(ctx.root, ctx.config.config, 'run');
        const inspection = await openInspection(options, io);
        const interrupt = new Interrupt();
        const view = options.json ? undefined : io.isTTY ? new LiveLines(io, describeTeam) : undefined;
        const printed = new Map<string, string>();
        const plain = (run: TeamRun) => {
          // Plain output: one line each time a team's state, phase or outcome changes.
          const line = plainLine(run);
          if (line && printed.get(run.team) !== line) io.stdout(`${line}\n`);
          printed.set(run.team, line ?? printed.get(run.team) ?? '');
        };
        let summary: RunSummary;
        try {
          summary = await runFederation(ctx.fed, {
            config: ctx.config.config,
            teams: options.team,
            parallel: options.parallel,
            agent: options.agent,
            timeoutSeconds: options.timeout,
            signal: interrupt.signal,
            hooks,
            inspect: inspection.inspect,
            inspectRecord: inspection.record,
            env: io.env,
            cwd: io.cwd,
            onUpdate: options.json ? undefined : (run) => (view ? view.update(run.team, run) : plain(run)),
          });
        } finally {
          view?.stop();
          await inspection.stop();
          interrupt.dispose();
        }
        for (const run of summary.teams)
          for (const warning of run.warnings) io.stderr(`warning: ${run.team}: ${warning}\n`);
        for (const warning of summary.warnings) io.stderr(`warning: ${warning}\n`);
        if (options.json) printJson(io, summary);
        else io.stdout(renderSummary(summary));
        // 0 only when every team run completed: a failed, paused or interrupted team is not done.
        if (summary.completed !== summary.teams.length) throw new CliExit(1);
      },
    );
}

const seconds = (ms: number) => `${Math.max(0, Math.round(ms / 1000))} s`;

/** A team's live line: state, time in it, last event, outcome. */
function describeTeam(run: TeamRun, now: number): string {
  const inState = run.since && run.phase === 'running' ? ` ${seconds(now - Date.parse(run.since))}` : '';
  const outcome =
    run.phase === 'done'
      ? `  → ${run.outcome}${run.reason ? `: ${run.reason}` : ''}`
      : run.phase === 'not-started'
        ? '  → not started (interrupted)'
        : '';
  return `${run.team.padEnd(20)} ${run.phase.padEnd(8)} ${(run.state + inState).padEnd(20)} ${run.lastEvent ?? '-'}${outcome}`;
}

function plainLine(run: TeamRun): string | undefined {
  if (run.phase === 'waiting') return `${run.team}: waiting (${run.state})`;
  if (run.phase === 'running')
    return `${run.team}: ${run.resumed ? 'resumed, ' : ''}running, ${run.state}${run.lastEvent ? ` (${run.lastEvent})` : ''}`;
  if (run.phase === 'not-started') return `${run.team}: not started (interrupted)`;
  return `${run.team}: ${run.outcome} (${run.state})${run.reason ? `: ${run.reason}` : ''}`;
}

function renderSummary(summary: RunSummary): string {
  const lines = [
    `\nran ${summary.teams.length} team${summary.teams.length === 1 ? '' : 's'} (at most ${summary.parallel} at once): ` +
      `${summary.completed} complete, ${summary.failed} failed, ${summary.paused} paused${summary.notStarted ? `, ${summary.notStarted} not started` : ''}`,
    ...summary.skipped.map((s) => `skipped ${s.team}: ${s.reason}`),
  ];
  if (summary.interrupted) lines.push('interrupted: the running teams were paused; run again to resume them: fed run');
  if (summary.report) lines.push(`federation report: ${summary.report}`);
  if (summary.teams.length === 0 && summary.skipped.length === 0)
    lines.push('no teams yet; plan some: fed plan --apply');
  return `${lines.join('\n')}\n`;
}
