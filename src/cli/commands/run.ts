import type { Command } from 'commander';
import type { InProcessCommand } from '../../apps/launch/supervise/agent-broker.js';
import { loadHooks } from '../../engine/hooks/load-hooks.js';
import { runFederation, type RunSummary, type TeamRun } from '../../apps/run/run-federation.js';
import { CliExit, federationContext, printJson, type CliIo } from '../io.js';
import { openInspection } from '../inspection.js';
import { Interrupt } from '../interrupt.js';
import { duration, nonEmptyPath, positiveInteger, positiveNumber } from '../option-parsers.js';
import { DURATION_EXAMPLES } from '../../core/schema/duration.js';
import { LAUNCH_EXIT_CODES_HELP, launchExitCode } from '../launch-exit-code.js';
import type { LaunchResult } from '../../engine/hooks/federation-hooks.js';
import { LiveLines } from '../live-lines.js';

export function registerRun(program: Command, io: CliIo, runCli?: InProcessCommand): void {
  program
    .command('run')
    .description(
      'launch every team that has a mission and is not finished (or the named ones), several at once, each as fed launch does',
    )
    .option('--team <team...>', 'run only these teams (repeatable)')
    .option(
      '--parallel <n>',
      'at most this many teams at once (default: the number of cores)',
      positiveInteger('teams'),
    )
    .option(
      '--agent <command>',
      'the agent command to run instead of agentCommand from federate.config.json (default there: fed-agent)',
    )
    .option(
      '--timeout <seconds>',
      "stop a team's hung agent after this long and pause the team",
      positiveNumber('seconds'),
    )
    .option(
      '--max-wait <duration>',
      `wait this long at most (from the start of the run) for rate limits to reset, then resume the paused teams' sessions; a team whose limit resets later is left paused (${DURATION_EXAMPLES}; default 6h)`,
      duration(),
    )
    .option(
      '--inspect-log <file>',
      'append xstate inspection events of every team to <file> as JSON lines',
      nonEmptyPath('a file'),
    )
    .option('--json', 'print one summary object at the end')
    .addHelpText('after', LAUNCH_EXIT_CODES_HELP)
    .action(
      async (
        options: {
          team?: string[];
          parallel?: number;
          agent?: string;
          timeout?: number;
          maxWait?: number;
          inspectLog?: string;
          json?: boolean;
        },
        command: Command,
      ) => {
        const ctx = federationContext(command, io);
        const hooks = await loadHooks(ctx.root, ctx.config.config, 'run');
        const inspection = await openInspection(options, io);
        const interrupt = new Interrupt();
        const shown = progress(io, options.json);
        let summary: RunSummary;
        try {
          summary = await runFederation(ctx.fed, {
            config: ctx.config.config,
            teams: options.team,
            parallel: options.parallel,
            agent: options.agent,
            timeoutSeconds: options.timeout,
            maxWaitMs: options.maxWait,
            signal: interrupt.signal,
            hooks,
            inspect: inspection.inspect,
            inspectRecord: inspection.record,
            env: io.env,
            cwd: io.cwd,
            runInProcess: runCli,
            onUpdate: shown.onUpdate,
          });
        } finally {
          shown.stop();
          await inspection.stop();
          interrupt.dispose();
        }
        for (const line of teamWarningLines(summary.teams)) io.stderr(line);
        for (const warning of summary.warnings) io.stderr(`warning: ${warning}\n`);
        if (options.json) printJson(io, summary);
        else io.stdout(renderSummary(summary));
        // A refused launch is the CLI's 2 (fed launch exits 2 for the same refusal), after a failure's 1; so
        // is a team skipped because its files cannot be read (fed launch refuses it the same way).
        const refused = summary.refused > 0 || summary.skipped.some((skipped) => skipped.unreadable);
        const code = refused && summary.failed === 0 ? 2 : launchExitCode(endedAs(summary));
        if (code !== 0) throw new CliExit(code);
      },
    );
}

/** How the teams' progress is shown: live lines on a terminal, else a line per change; nothing with --json. */
function progress(io: CliIo, json: boolean | undefined): { onUpdate?: (run: TeamRun) => void; stop(): void } {
  if (json) return { stop: () => {} };
  if (io.isTTY) {
    const view = new LiveLines(io, describeTeam);
    return { onUpdate: (run) => view.update(run.team, run), stop: () => view.stop() };
  }
  const printed = new Map<string, string>();
  return {
    onUpdate: (run) => {
      // Plain output: one line each time a team's state, phase or outcome changes.
      const line = plainLine(run);
      if (line && printed.get(run.team) !== line) io.stdout(`${line}\n`);
      printed.set(run.team, line ?? printed.get(run.team) ?? '');
    },
    stop: () => {},
  };
}

const seconds = (ms: number) => `${Math.max(0, Math.round(ms / 1000))} s`;

/** A team's live line: state, time in it, last event, outcome. */
function describeTeam(run: TeamRun, now: number): string {
  const inState = run.since && run.phase === 'running' ? ` ${seconds(now - Date.parse(run.since))}` : '';
  const outcome =
    run.phase === 'waiting' && run.resumeAt
      ? `  → ${waitingForReset(run)}`
      : run.phase === 'done'
        ? `  → ${run.outcome}${run.reason ? `: ${run.reason}` : ''}`
        : run.phase === 'not-started'
          ? `  → not started (${run.reason ?? 'interrupted'})`
          : '';
  return `${run.team.padEnd(20)} ${run.phase.padEnd(8)} ${(run.state + inState).padEnd(20)} ${run.lastEvent ?? '-'}${outcome}`;
}

function plainLine(run: TeamRun): string | undefined {
  if (run.phase === 'waiting' && run.resumeAt) return `${run.team}: ${waitingForReset(run)}`;
  if (run.phase === 'waiting') return `${run.team}: waiting (${run.state})`;
  if (run.phase === 'running')
    return `${run.team}: ${run.resumed ? 'resumed, ' : ''}running, ${run.state}${run.lastEvent ? ` (${run.lastEvent})` : ''}`;
  if (run.phase === 'not-started') return `${run.team}: not started (${run.reason ?? 'interrupted'})`;
  const resumes = run.outcome === 'paused' && run.resumeAt ? `; resumes at ${run.resumeAt}` : '';
  return `${run.team}: ${run.outcome} (${run.state})${run.reason ? `: ${run.reason}` : ''}${resumes}`;
}

function renderSummary(summary: RunSummary): string {
  const lines = [
    `\nran ${summary.teams.length} team${summary.teams.length === 1 ? '' : 's'} (at most ${summary.parallel} at once): ` +
      `${summary.completed} complete, ${summary.failed} failed${summary.refused ? `, ${summary.refused} refused` : ''}, ${summary.paused} paused${summary.notStarted ? `, ${summary.notStarted} not started` : ''}`,
    ...summary.skipped.map((s) => `skipped ${s.team}: ${s.reason}`),
  ];
  if (summary.interrupted) lines.push('interrupted: the running teams were paused; run again to resume them: fed run');
  if (summary.report) lines.push(`federation report: ${summary.report}`);
  if (summary.teams.length === 0 && summary.skipped.length === 0)
    lines.push('no teams yet; plan some: fed plan --apply');
  return `${lines.join('\n')}\n`;
}

const waitingForReset = (run: TeamRun) => `waiting for the rate limit to reset at ${run.resumeAt}`;

/**
 * How each team's part of the run ended, for the exit code: a launch that could not run failed; a team
 * not started (Ctrl-C) or left waiting for a rate limit to reset after --max-wait is paused.
 */
function endedAs(summary: RunSummary): LaunchResult['outcome'][] {
  return [
    // A refused team is counted apart (summary.refused): it did not run.
    ...summary.teams.flatMap((run): LaunchResult['outcome'][] => {
      if (run.outcome === 'refused') return [];
      return [run.outcome === 'error' ? 'failed' : run.phase === 'not-started' ? 'paused' : (run.outcome ?? 'paused')];
    }),
    ...summary.skipped.filter((skipped) => skipped.resumeAt).map(() => 'paused' as const),
  ];
}

/**
 * The teams' warnings, one line per distinct warning naming every team that had it: a machine without
 * bubblewrap gave each launch the same warning, and a run of three teams said it three times.
 */
export function teamWarningLines(teams: readonly { team: string; warnings: readonly string[] }[]): string[] {
  const teamsOf = new Map<string, string[]>();
  for (const { team, warnings } of teams)
    for (const warning of new Set(warnings)) teamsOf.set(warning, [...(teamsOf.get(warning) ?? []), team]);
  return [...teamsOf].map(([warning, named]) => `warning: ${named.join(', ')}: ${warning}\n`);
}
