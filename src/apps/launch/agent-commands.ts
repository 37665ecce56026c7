import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { RefusedError } from '../../core/errors.js';

/**
 * The `fed` commands a sandboxed agent may run through its launcher's broker: what the launch prompt and
 * the archetype briefs tell agents to use (report events, read and send signals, read teams, check the
 * deliverable, read schemas, the config and the journal). Everything else — launching, running,
 * onboarding, archiving, retrying, reviewing, merging, migrating, chat, the demo… — is the operator's,
 * and refused. A command maps to the subcommands allowed, or to `true` for all of them.
 */
const AGENT_COMMANDS: Readonly<Record<string, true | readonly string[]>> = {
  event: true,
  signal: ['send', 'list', 'show', 'ack', 'watch'],
  team: ['show', 'list'],
  deliverable: ['check'],
  schema: true,
  config: ['show'],
  log: true,
};

const HELP = new Set(['-h', '--help', '-V', '--version']);

/** What an agent may run, for the refusal. */
function allowedList(): string {
  return Object.entries(AGENT_COMMANDS)
    .map(([command, subcommands]) => `fed ${command}${subcommands === true ? '' : ` ${subcommands.join('|')}`}`)
    .join(', ');
}

/** `--root` values anywhere before `--` (commander takes program options after the command too). */
function rootValues(argv: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < argv.length && argv[i] !== '--'; i++) {
    const arg = argv[i]!;
    if (arg === '--root') values.push(argv[++i] ?? '');
    else if (arg.startsWith('--root=')) values.push(arg.slice('--root='.length));
  }
  return values;
}

function sameDirectory(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * Refuses (AGENT_COMMAND_REFUSED) a command an agent has no business running, or a `--root` other than
 * its own federation's; `cwd` is where the agent runs it (a relative `--root` is resolved there).
 */
export function checkAgentCommand(argv: readonly string[], cwd: string, root: string): void {
  for (const value of rootValues(argv)) {
    if (!sameDirectory(resolve(cwd, value), root))
      throw new RefusedError(
        'AGENT_COMMAND_REFUSED',
        `--root ${value}: an agent acts only on its own federation (${root}); leave --root out`,
      );
  }
  let i = 0;
  while (i < argv.length && (argv[i] === '--root' || argv[i]!.startsWith('--root='))) i += argv[i] === '--root' ? 2 : 1;
  const command = argv[i];
  // A bare `fed` (help), `fed --help`, `fed --version`.
  if (command === undefined || HELP.has(command)) return;
  const allowed = AGENT_COMMANDS[command];
  const subcommand = argv[i + 1];
  if (
    allowed === true ||
    (allowed !== undefined && (subcommand === undefined || HELP.has(subcommand) || allowed.includes(subcommand)))
  )
    return;
  const named = allowed === undefined || subcommand === undefined ? command : `${command} ${subcommand}`;
  throw new RefusedError(
    'AGENT_COMMAND_REFUSED',
    `fed ${named} is not for an agent: inside the sandbox an agent may run ${allowedList()} (the operator runs the rest)`,
  );
}
