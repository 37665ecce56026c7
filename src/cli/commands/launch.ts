import type { Command } from 'commander';
import type { InProcessCommand } from '../../apps/launch/supervise/agent-broker.js';
import { loadHooks } from '../../engine/hooks/load-hooks.js';
import { launchTeam } from '../../apps/launch/launch-team.js';
import { keepTeamWhileLaunching } from '../../apps/hosts/keep-team-while-launching.js';
import { CliExit, federationContext, printJson, type CliIo } from '../io.js';
import { openInspection } from '../inspection.js';
import { Interrupt } from '../interrupt.js';
import { nonEmptyPath, oneOf, positiveNumber } from '../option-parsers.js';
import { AGENT_PRESETS, type AgentPresetName } from '../../core/schema/config.js';
import { requireTeam } from '../team-option.js';
import { describeRun } from '../describe-run.js';
import { networkSummary } from '../../apps/launch/supervise/network/network-log.js';
import { LAUNCH_EXIT_CODES_HELP, launchExitCode } from '../launch-exit-code.js';

export function registerLaunch(program: Command, io: CliIo, runCli?: InProcessCommand): void {
  program
    .command('launch')
    .description("run a team's agent in its workspace, supervised by its lifecycle (the launch script)")
    .option('--team <team>', 'the team whose agent to run (default: $FED_TEAM or the workspace you are in)')
    .option(
      '--agent <command>',
      'the agent command to run instead of agentCommand from federate.config.json (default there: fed-agent)',
    )
    .option(
      '--preset <name>',
      `how to drive the agent CLI (its flags, prompt, event stream, resume): ${AGENT_PRESETS.join(', ')} (default: agent.preset, else from the program name)`,
      oneOf(AGENT_PRESETS),
    )
    .option(
      '--timeout <seconds>',
      'stop the agent after this long and pause the team (relaunch it to resume the session)',
      positiveNumber('seconds'),
    )
    .option('--inspect', 'serve the Stately inspector for the team actor (prints the page URL)')
    .option('--inspect-log <file>', 'append xstate inspection events to <file> as JSON lines', nonEmptyPath('a file'))
    .option('--json', 'print one result object')
    .addHelpText('after', LAUNCH_EXIT_CODES_HELP)
    .action(
      async (
        options: {
          team?: string;
          agent?: string;
          preset?: AgentPresetName;
          timeout?: number;
          inspect?: boolean;
          inspectLog?: string;
          json?: boolean;
        },
        command: Command,
      ) => {
        const ctx = federationContext(command, io);
        const team = requireTeam(options.team, ctx, 'fed launch --team <team>');
        const hooks = await loadHooks(ctx.root, ctx.config.config, 'launch');
        const inspection = await openInspection(options, io);
        const interrupt = new Interrupt();
        try {
          // On a federation shared across machines, what a move of the team needs is kept as fed serve keeps it.
          const entry = await ctx.fed.team(team);
          const warn = (text: string) => io.stderr(`warning: ${text}\n`);
          const result = await keepTeamWhileLaunching(ctx.fed, entry, warn, () =>
            launchTeam(ctx.fed, team, {
              config: ctx.config.config,
              agent: options.agent,
              preset: options.preset,
              timeoutSeconds: options.timeout,
              signal: interrupt.signal,
              hooks,
              inspect: inspection.inspect,
              inspectRecord: inspection.record,
              env: io.env,
              cwd: io.cwd,
              runInProcess: runCli,
              onProgress: options.json
                ? undefined
                : (line) =>
                    io.stdout(
                      line.from === line.to
                        ? `still ${line.to}  (${line.event})\n`
                        : `${line.from} → ${line.to}  (${line.event})\n`,
                    ),
            }),
          );
          renderLaunch(io, result, options.json);
          const code = launchExitCode([result.outcome]);
          if (code !== 0) throw new CliExit(code);
        } finally {
          await inspection.stop();
          interrupt.dispose();
        }
      },
    );
}

/** The warnings, the run and how the launch ended; `--json`: the result. */
function renderLaunch(io: CliIo, result: Awaited<ReturnType<typeof launchTeam>>, json: boolean | undefined): void {
  for (const warning of result.warnings) io.stderr(`warning: ${warning}\n`);
  if (json) return printJson(io, result);
  io.stdout(`run: ${describeRun(result.lastRun)}\n`);
  if (result.lastRun.network) io.stdout(`${networkSummary(result.lastRun.network)}\n`);
  if (result.outcome === 'complete')
    io.stdout(
      `complete${result.deliverableExists ? `: ${result.deliverablePath}` : ` (${result.state})`}\nagent log: ${result.logPath}\n`,
    );
  else if (result.outcome === 'waiting')
    io.stdout(`waiting in ${result.state}: ${result.next}\nagent log: ${result.logPath}\n`);
  else if (result.outcome === 'paused' && result.state === 'paused') {
    io.stdout(
      `paused${result.reason ? ` (${result.reason})` : ''}; ${result.lastRun.resumeAt ? `resumes at ${result.lastRun.resumeAt} (fed run waits for it); ` : ''}resume with: fed team resume ${result.team} && fed launch --team ${result.team}\n`,
    );
  } else if (result.outcome === 'paused')
    io.stdout(
      `stopped for a pause, and the team was resumed meanwhile (${result.state}); launch it again: fed launch --team ${result.team}\n`,
    );
  else io.stderr(`fed: team ${result.team} failed: ${result.reason}\nagent log: ${result.logPath}\n`);
}
