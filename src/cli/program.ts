import { Command, CommanderError } from 'commander';
import { FedError } from '../core/errors.js';
import { fileSystemErrorFor } from '../infra/fs/fs-errors.js';
import { packageVersion } from '../infra/package-info.js';
import { CliExit, escapedIo, processIo, type CliIo } from './cli-io.js';
import { COMMAND_NAMES, requestedCommand, type CommandName } from './command-names.js';

/** Exit codes (docs/operations.md#exit-codes): 0 ok, 2 bad input or refused operation, 1 anything else. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_REFUSED = 2;

type Register = (program: Command, io: CliIo) => void;

/**
 * Each top-level command's module, loaded only when that command runs: start-up is the cost agents feel
 * (they call `fed event` at every step), and most commands need a small part of fed.
 */
const COMMANDS: Record<CommandName, () => Promise<Register>> = {
  init: async () => (await import('./commands/init.js')).registerInit,
  team: async () => (await import('./commands/team.js')).registerTeam,
  signal: async () => (await import('./commands/signal.js')).registerSignal,
  schema: async () => (await import('./commands/schema.js')).registerSchema,
  event: async () => (await import('./commands/event.js')).registerEvent,
  actors: async () => (await import('./commands/actors.js')).registerActors,
  plan: async () => (await import('./commands/plan.js')).registerPlan,
  // A launch's broker runs its agent's fed commands through runCli, handed in as the demo's is (below).
  run: async () => {
    const { registerRun } = await import('./commands/run.js');
    return (program, io) => registerRun(program, io, runCli);
  },
  serve: async () => {
    const { registerServe } = await import('./commands/serve.js');
    return (program, io) => registerServe(program, io, runCli);
  },
  schedule: async () => (await import('./commands/schedule.js')).registerSchedule,
  hosts: async () => (await import('./commands/hosts.js')).registerHosts,
  launch: async () => {
    const { registerLaunch } = await import('./commands/launch.js');
    return (program, io) => registerLaunch(program, io, runCli);
  },
  runs: async () => (await import('./commands/runs.js')).registerRuns,
  monitor: async () => (await import('./commands/monitor.js')).registerMonitor,
  chat: async () => (await import('./commands/chat.js')).registerChat,
  config: async () => (await import('./commands/config.js')).registerConfig,
  machines: async () => (await import('./commands/machines.js')).registerMachines,
  deliverable: async () => (await import('./commands/deliverable.js')).registerDeliverable,
  // The demo runs its steps through runCli: handed in, since the demo module importing this one is a cycle.
  demo: async () => {
    const { registerDemo } = await import('./commands/demo.js');
    return (program, io) => registerDemo(program, io, runCli);
  },
  doctor: async () => (await import('./commands/doctor.js')).registerDoctor,
  log: async () => (await import('./commands/log.js')).registerLog,
  migrate: async () => (await import('./commands/migrate.js')).registerMigrate,
  mcp: async () => (await import('./commands/mcp.js')).registerMcp,
  ui: async () => (await import('./commands/ui.js')).registerUi,
};

/**
 * The commands `argv` needs: the one it names; none for a bare `--version`; every one otherwise (help,
 * an unknown command — so commander can list them or suggest the closest name), in help order.
 */
function commandsFor(argv: readonly string[]): readonly CommandName[] {
  const requested = requestedCommand(argv);
  if (requested === '--version') return [];
  return requested ? [requested] : COMMAND_NAMES;
}

export async function buildProgram(io: CliIo, argv: readonly string[] = []): Promise<Command> {
  const program = new Command('fed')
    .description('Coordinate a federation of agent teams through files: signals, registry, lifecycles.')
    .version(packageVersion(), '-V, --version', 'print the fed version')
    .option('--root <dir>', 'federation root (default: $FED_ROOT, else the nearest enclosing federation)')
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride();
  const names = commandsFor(argv);
  // Before any command module builds its schemas: zod reads its settings as each one is built.
  if (names.length > 0) await import('../core/schema/zod-jitless.js');
  const registers = await Promise.all(names.map((name) => COMMANDS[name]()));
  for (const register of registers) register(program, io);
  // Subcommands inherit the output and exit handling of the program.
  for (const command of allCommands(program))
    command.configureOutput({ writeOut: io.stdout, writeErr: io.stderr }).exitOverride();
  return program;
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((child) => [child, ...allCommands(child)]);
}

/**
 * How a command ended: its exit code, and whether it ran to its own end — returned, or chose its exit
 * code once its work was done (CliExit: an unhealthy monitor, a refused document), or printed help or the
 * version — rather than being stopped by an error (bad input, no federation here, a refusal).
 */
export interface CliOutcome {
  exitCode: number;
  ranToEnd: boolean;
}

/** Run the CLI with `argv` (without node and script) and say how it ended; never exits the process. */
export async function runCommand(argv: readonly string[], given: CliIo = processIo()): Promise<CliOutcome> {
  const io = escapedIo(given);
  try {
    const program = await buildProgram(io, argv);
    await program.parseAsync([...argv], { from: 'user' });
    return { exitCode: EXIT_OK, ranToEnd: true };
  } catch (error) {
    const ranToEnd = error instanceof CliExit || (error instanceof CommanderError && error.exitCode === 0);
    return { exitCode: exitCodeFor(error, io), ranToEnd };
  }
}

/** Run the CLI with `argv` (without node and script) and return the exit code; never exits the process. */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  return (await runCommand(argv, io)).exitCode;
}

function exitCodeFor(error: unknown, io: CliIo): number {
  if (error instanceof CliExit) return error.exitCode;
  if (error instanceof CommanderError) {
    // Help and version end in a CommanderError with exit code 0; usage errors were already printed.
    return error.exitCode === 0 ? EXIT_OK : EXIT_REFUSED;
  }
  const known = error instanceof FedError ? error : fileSystemErrorFor(error);
  if (known) {
    io.stderr(`fed: ${known.message}\n`);
    return known.refusal ? EXIT_REFUSED : EXIT_FAILURE;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr(`fed: unexpected error: ${message}\n`);
  return EXIT_FAILURE;
}
