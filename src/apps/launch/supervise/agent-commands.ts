import { existsSync, realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { RefusedError } from '../../../core/errors.js';

/**
 * The `fed` commands a sandboxed agent may run through its launcher's broker: what the launch prompt and
 * the archetype briefs tell agents to use (report events, read and send signals, read teams, check the
 * deliverable, read schemas, the config and the journal). Everything else — launching, running,
 * onboarding, archiving, retrying, reviewing, merging, migrating, chat, the demo… — is the operator's,
 * and refused. A command maps to the subcommands allowed, or to `true` for all of them. `fed mcp` is the
 * team's MCP server, which the agent's CLI starts (its stdin and stdout stream through the broker for as
 * long as it runs) — the team's, never meta's (`--meta` is refused).
 */
const AGENT_COMMANDS: Readonly<Record<string, true | readonly string[]>> = {
  event: true,
  signal: ['send', 'list', 'show', 'ack', 'watch'],
  team: ['show', 'list'],
  deliverable: ['check'],
  schema: true,
  config: ['show'],
  log: true,
  mcp: true,
};

const HELP = new Set(['-h', '--help', '-V', '--version']);

/** What an agent may run, for the refusal. */
function allowedList(): string {
  return Object.entries(AGENT_COMMANDS)
    .map(([command, subcommands]) => `fed ${command}${subcommands === true ? '' : ` ${subcommands.join('|')}`}`)
    .join(', ');
}

/** The value of an option (`--name value` or `--name=value`) wherever it is before `--`. */
function optionValues(argv: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < argv.length && argv[i] !== '--'; i++) {
    const arg = argv[i]!;
    if (arg === name) values.push(argv[++i] ?? '');
    else if (arg.startsWith(`${name}=`)) values.push(arg.slice(name.length + 1));
  }
  return values;
}

/** `--meta` as commander reads it (a boolean flag; `--meta=<value>` is one too, and refused by it). */
const isMetaOption = (arg: string): boolean => arg === '--meta' || arg.startsWith('--meta=');

function sameDirectory(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** `path` is `root` or inside it, links resolved (a path that does not exist is not). */
export function isInside(path: string, root: string): boolean {
  try {
    const real = realpathSync(path);
    const top = realpathSync(root);
    return real === top || real.startsWith(top.endsWith(sep) ? top : `${top}${sep}`);
  } catch {
    return false;
  }
}

/**
 * The files the command would read outside the sandbox, where they are not the agent's to choose: a
 * `--body-file` other than standard input (fed inside the sandbox reads the file itself and sends it on
 * stdin — the broker would read what the sandbox hides, such as another process's environment under
 * /proc), and a deliverable or schema to check outside the federation.
 */
function checkFiles(
  argv: readonly string[],
  command: string,
  args: readonly string[],
  cwd: string,
  root: string,
): void {
  for (const value of optionValues(argv, '--body-file')) {
    if (value !== '-')
      throw new RefusedError(
        'AGENT_COMMAND_REFUSED',
        `--body-file ${value}: the broker reads no files for an agent; pipe the body (--body-file -) — the fed in the sandbox does that for you`,
      );
  }
  if (command.startsWith('mcp ') && argv.some((arg, i) => isMetaOption(arg) && !argv.slice(0, i).includes('--')))
    throw new RefusedError(
      'AGENT_COMMAND_REFUSED',
      "fed mcp --meta serves meta's side (directives, approvals, merges), which is not for an agent; its own team's server is fed mcp",
    );
  if (command !== 'deliverable check') return;
  const end = args.includes('--') ? args.indexOf('--') : args.length;
  const files = [
    ...optionValues(args, '--schema'),
    ...args.slice(0, end).filter((arg, i) => !arg.startsWith('-') && args[i - 1] !== '--schema'),
    ...args.slice(end + 1),
  ];
  for (const file of files) {
    // A file that is not there is fed's to report (it cannot be read, wherever it would be).
    const path = resolve(cwd, file);
    if (existsSync(path) && !isInside(path, root))
      throw new RefusedError(
        'AGENT_COMMAND_REFUSED',
        `${file}: an agent checks files of its federation (${root}) only; write the draft in your workspace and check it there`,
      );
  }
}

/**
 * Refuses (AGENT_COMMAND_REFUSED) a command an agent has no business running, a `--root` other than its
 * own federation's, or a file for the broker to read that the agent does not see (checkFiles); `cwd` is
 * where the agent runs it (relative paths are resolved there).
 */
export function checkAgentCommand(argv: readonly string[], cwd: string, root: string): void {
  // Anywhere before `--`: commander takes program options after the command too.
  for (const value of optionValues(argv, '--root')) {
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
    return checkFiles(argv, `${command} ${subcommand}`, argv.slice(i + 2), cwd, root);
  const named = allowed === undefined || subcommand === undefined ? command : `${command} ${subcommand}`;
  throw new RefusedError(
    'AGENT_COMMAND_REFUSED',
    `fed ${named} is not for an agent: inside the sandbox an agent may run ${allowedList()} (the operator runs the rest)`,
  );
}
