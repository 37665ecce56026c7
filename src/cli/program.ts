import { Command, CommanderError } from 'commander';
import { FedError } from '../errors.js';
import { fileSystemErrorFor } from '../fs/fs-errors.js';
import { packageVersion } from '../package-info.js';
import { registerActors } from './commands/actors.js';
import { registerChat } from './commands/chat.js';
import { registerConfig } from './commands/config.js';
import { registerDeliverable } from './commands/deliverable.js';
import { registerDemo } from './commands/demo.js';
import { registerEvent } from './commands/event.js';
import { registerInit } from './commands/init.js';
import { registerLaunch } from './commands/launch.js';
import { registerMonitor } from './commands/monitor.js';
import { registerMachines } from './commands/machines.js';
import { registerSchema } from './commands/schema.js';
import { registerSignal } from './commands/signal.js';
import { registerTeam } from './commands/team.js';
import { CliExit, processIo, type CliIo } from './io.js';

/** Exit codes (ARCHITECTURE §1): 0 ok, 2 bad input or refused operation, 1 anything else. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_REFUSED = 2;

export function buildProgram(io: CliIo): Command {
  const program = new Command('fed')
    .description('Coordinate a federation of agent teams through files: signals, registry, lifecycles.')
    .version(packageVersion(), '-V, --version', 'print the fed version')
    .option('--root <dir>', 'federation root (default: $FED_ROOT, else the nearest enclosing federation)')
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride();
  registerInit(program, io);
  registerTeam(program, io);
  registerSignal(program, io);
  registerSchema(program, io);
  registerEvent(program, io);
  registerActors(program, io);
  registerLaunch(program, io);
  registerMonitor(program, io);
  registerChat(program, io);
  registerConfig(program, io);
  registerMachines(program, io);
  registerDeliverable(program, io);
  registerDemo(program, io);
  // Subcommands inherit the output and exit handling of the program.
  for (const command of allCommands(program)) command.configureOutput({ writeOut: io.stdout, writeErr: io.stderr }).exitOverride();
  return program;
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((child) => [child, ...allCommands(child)]);
}

/** Run the CLI with `argv` (without node and script) and return the exit code; never exits the process. */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    return exitCodeFor(error, io);
  }
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
