import type { Command } from 'commander';
import type { InProcessCommand } from '../../apps/launch/supervise/agent-broker.js';
import type { ServeEvent } from '../../apps/serve/serve-events.js';
import type { UiListener } from '../../apps/ui/server/ui-server.js';
import { DEFAULT_STOP_GRACE_MS, serveFederation } from '../../apps/serve/serve-federation.js';
import { DURATION_EXAMPLES, type TimerBounds } from '../../core/schema/duration.js';
import { loadHooks } from '../../engine/hooks/load-hooks.js';
import { federationContext, type CliIo } from '../io.js';
import { Interrupt } from '../interrupt.js';
import { InvalidInputError } from '../../core/errors.js';
import { duration, hostName, portNumber, positiveInteger, positiveNumber } from '../option-parsers.js';

/** `--monitor-every`: under a second the server would run the monitoring cycle (notify, archive) without pause. */
const MONITOR_INTERVAL: TimerBounds = {
  what: 'interval',
  min: { ms: 1_000, why: 'the server would run the monitoring cycle almost without pause' },
};

interface ServeCliOptions {
  capacity?: number;
  grace?: number;
  agent?: string;
  timeout?: number;
  monitorEvery?: number;
  json?: boolean;
  ui?: boolean;
  port: number;
  host: string;
  hostName?: string;
}

export function registerServe(program: Command, io: CliIo, runCli?: InProcessCommand): void {
  program
    .command('serve')
    .description(
      "run the federation by itself until stopped: apply every team's signals, launch a team's agent whenever it has work, monitor",
    )
    .option(
      '--capacity <n>',
      'at most this many agents at once (default: the number of cores)',
      positiveInteger('agents'),
    )
    .option(
      '--grace <duration>',
      `when stopped (SIGTERM, Ctrl-C), let running agents finish this long, then pause them (${DURATION_EXAMPLES}; default ${DEFAULT_STOP_GRACE_MS / 1000}s; at most 24 days)`,
      duration({ what: 'grace period' }),
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
      '--monitor-every <duration>',
      `run the monitoring cycle this often (${DURATION_EXAMPLES}; default 1m; at least 1s, at most 24 days)`,
      duration(MONITOR_INTERVAL),
    )
    .option('--ui', 'serve the dashboard too, from this process (prints its URL)')
    .option('--port <port>', "the dashboard's port with --ui (0: a free one)", portNumber(), 0)
    .option('--host <address>', "the dashboard's address with --ui", '127.0.0.1')
    .option(
      '--host-name <name>',
      "this machine's name among the hosts of a federation shared across machines (default: serve.hostName in federate.config.json, else the system's host name)",
      hostName(),
    )
    .option('--json', 'print one JSON object per line for everything the server does')
    .action(async (options: ServeCliOptions, command: Command) => {
      // The dashboard's address without the dashboard: refused, as given on the command line (the defaults are not).
      for (const option of ['port', 'host'] as const)
        if (!options.ui && command.getOptionValueSource(option) === 'cli')
          throw new InvalidInputError(`--${option} applies to --ui only (add --ui to serve the dashboard there)`);
      const ctx = federationContext(command, io);
      const hooks = await loadHooks(ctx.root, ctx.config.config, 'serve');
      // The dashboard's address is listened on first: one it cannot listen on is refused (exit 2) before
      // the server starts and says it serves. It serves once the server runs (onStarted).
      let uiListener: UiListener | undefined;
      if (options.ui) {
        const { listenUiServer } = await import('../../apps/ui/server/ui-server.js');
        uiListener = await listenUiServer({ port: options.port, host: options.host });
      }
      const stop = new Interrupt();
      // A second Ctrl-C or SIGTERM while running agents are given their grace stops them at once.
      const stopNow = new AbortController();
      const cut = () => stopNow.abort();
      stop.signal.addEventListener('abort', () => {
        process.once('SIGINT', cut);
        process.once('SIGTERM', cut);
      });
      const print = (event: ServeEvent) => {
        if (options.json) io.stdout(`${JSON.stringify(event)}\n`);
        else if (event.kind === 'warning') io.stderr(`warning: ${event.text}\n`);
        else io.stdout(`${renderEvent(event)}\n`);
      };
      try {
        await serveFederation(ctx.fed, {
          config: ctx.config.config,
          capacity: options.capacity,
          host: options.hostName,
          agent: options.agent,
          timeoutSeconds: options.timeout,
          stopGraceMs: options.grace,
          monitorIntervalMs: options.monitorEvery,
          signal: stop.signal,
          stopNow: stopNow.signal,
          hooks,
          env: io.env,
          cwd: io.cwd,
          runInProcess: runCli,
          onEvent: print,
          onStarted: ({ changes, dispatch }) => {
            if (!uiListener) return;
            const ui = uiListener.start(ctx.fed, { changes, dispatch });
            print({ kind: 'ui', at: new Date().toISOString(), url: ui.url });
          },
        });
      } finally {
        await uiListener?.close();
        process.off('SIGINT', cut);
        process.off('SIGTERM', cut);
        stop.dispose();
      }
    });
}

const seconds = (ms: number) => `${Math.max(0, Math.round(ms / 1000))} s`;

/** One event as a line of the server's log: its time (UTC, to the second), then what happened. */
export function renderEvent(event: ServeEvent): string {
  return `${event.at.slice(0, 19)}Z ${describeEvent(event)}`;
}

function describeEvent(event: ServeEvent): string {
  switch (event.kind) {
    case 'started':
      return `serving ${event.root} on ${event.host} (pid ${event.pid}, at most ${event.capacity} agent${event.capacity === 1 ? '' : 's'} at once); stop with Ctrl-C or SIGTERM`;
    case 'ui':
      return `dashboard: ${event.url}`;
    case 'dispatched':
      return `${event.team}: launched for ${describeWork(event)} (${event.running} running, ${event.queued} waiting)`;
    case 'ended': {
      const resumes = event.resumeAt ? `; resumes at ${event.resumeAt}` : '';
      // The state only where it adds to the outcome ("paused (reviewing)"), not "complete (complete)".
      const state = event.state && event.state !== event.outcome ? ` (${event.state})` : '';
      return `${event.team}: ${event.outcome}${state} after ${seconds(event.durationMs)}${event.reason ? `: ${event.reason}` : ''}${resumes}`;
    }
    case 'waiting':
      return `${event.team}: waits ${event.why}${event.until ? ` at ${event.until}` : ''}`;
    case 'skipped':
      return `${event.team}: not served for now: ${event.reason}`;
    case 'applied':
      return `${event.team}: ${event.from} → ${event.to} (${event.event})`;
    case 'host-lost':
      return `host ${event.host} lost: not heard from since ${event.lastHeard}; its teams ${event.teams.join(', ')} wait (move them: fed team move <team> --to <host>)`;
    case 'moved':
      return `${event.team}: moved from host ${event.from ?? '(none recorded)'} to ${event.to}${event.by === 'failover' ? ' (failover)' : ''}`;
    case 'fired':
      return `schedule ${event.schedule}: directive to ${event.team} "${event.subject}" (due ${event.due})`;
    case 'warning':
      return `warning: ${event.text}`;
    case 'stopping':
      return `stopping: ${event.running.join(', ')} still running; they get ${seconds(event.graceMs)} to finish, then are paused (Ctrl-C or SIGTERM again: now)`;
    case 'stopped':
      return ['stopped', ...stoppedTeams(event)].join('; ');
  }
}

/** What the stop left of the teams whose agents it stopped, and what the next start does with each. */
function stoppedTeams({ paused, owed }: Extract<ServeEvent, { kind: 'stopped' }>): string[] {
  const them = (teams: string[]) => (teams.length === 1 ? 'it' : 'them');
  return [
    ...(paused.length ? [`paused ${paused.join(', ')} — the next fed serve resumes ${them(paused)}`] : []),
    ...(owed.length
      ? [
          `${owed.join(', ')} stopped with ${owed.length === 1 ? 'its run' : 'their runs'} unrecorded (the backend could not be written in time) — the next fed serve records and resumes ${them(owed)}`,
        ]
      : []),
  ];
}

const WORK_WORDS: Record<Extract<ServeEvent, { kind: 'dispatched' }>['work'], string> = {
  mission: 'its mission',
  directive: 'a directive',
  'new-mission': 'a new mission',
  resume: 'a resume',
  owed: 'the work it owes',
};

function describeWork(event: Extract<ServeEvent, { kind: 'dispatched' }>): string {
  return `${WORK_WORDS[event.work]}${event.subject ? ` "${event.subject}"` : ''}`;
}
