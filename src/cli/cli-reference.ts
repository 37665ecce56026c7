import type { Argument, Command, Help, Option } from 'commander';
import GithubSlugger from 'github-slugger';
import { cellCode, cellText, generatedNotice, markdownTable } from '../apps/docs/markdown.js';

/**
 * docs/reference/cli.md: every command of the program as commander has it — usage, description,
 * arguments, options with their defaults and choices, subcommands — read off the `Command` objects, so
 * the page cannot drift from `fed --help`. Rendered by hand rather than from the help text, whose line
 * wrapping depends on the terminal.
 */
export function renderCliReference(program: Command): string {
  const help = program.createHelp();
  const commands = allCommands(program);
  const slugger = new GithubSlugger();
  const headings = new Map(commands.map((command) => [command, commandPath(command)]));
  const anchors = new Map(commands.map((command) => [command, slugger.slug(headings.get(command)!)]));
  const parts = [
    generatedNotice('the commander program (src/cli/program.ts)'),
    '# CLI reference\n',
    `\`fed\`: ${cellText(program.description())}\n`,
    'Every `fed` command with its arguments and options, generated from the program itself; `fed <command> --help` prints the same. ' +
      'What the commands do, and why, is in the [guide](../guide.md) and the topic pages it links to. ' +
      'Exit codes: 0 success, 2 bad input or a refused operation, 1 anything else; `fed launch` and `fed run` also exit 1 when a team failed and 3 when one paused ([operations](../operations.md#exit-codes)).\n',
    '## Commands\n',
    commands
      .map((command) => `${'  '.repeat(depth(command) - 1)}- [${headings.get(command)}](#${anchors.get(command)})`)
      .join('\n') + '\n',
    section(program, help, 'Global options', 2),
    ...commands.map((command) => section(command, help, headings.get(command)!, depth(command) + 1)),
  ];
  return parts.join('\n');
}

function section(command: Command, help: Help, heading: string, level: number): string {
  const lines = [`${'#'.repeat(Math.min(level, 4))} ${heading}\n`];
  if (command.parent) lines.push('```text\n' + help.commandUsage(command) + '\n```\n');
  const description = command.parent ? command.description() : '';
  if (description) lines.push(`${cellText(capitalised(description))}${/[.!?]$/.test(description) ? '' : '.'}\n`);
  const args = help.visibleArguments(command);
  if (args.length > 0)
    lines.push(
      markdownTable(
        ['Argument', 'Description'],
        args.map((arg) => argumentRow(arg)),
      ),
    );
  const options = help.visibleOptions(command).filter((option) => !isHelpOption(option) || !command.parent);
  if (options.length > 0)
    lines.push(
      markdownTable(
        ['Option', 'Description', 'Default'],
        options.map((option) => optionRow(option)),
      ),
    );
  const subcommands = help.visibleCommands(command).filter((child) => child.name() !== 'help');
  if (subcommands.length > 0 && command.parent) {
    lines.push(
      markdownTable(
        ['Subcommand', 'Description'],
        subcommands.map((child) => [cellCode(commandPath(child)), cellText(child.description())]),
      ),
    );
  }
  return lines.join('\n');
}

function argumentRow(arg: Argument): string[] {
  const term = arg.required
    ? `<${arg.name()}${arg.variadic ? '...' : ''}>`
    : `[${arg.name()}${arg.variadic ? '...' : ''}]`;
  const choices = arg.argChoices ? ` (one of ${arg.argChoices.map((choice) => cellCode(choice)).join(', ')})` : '';
  return [cellCode(term), cellText(arg.description) + choices];
}

function optionRow(option: Option): string[] {
  const notes: string[] = [];
  if (option.mandatory) notes.push('required');
  if (option.argChoices) notes.push(`one of ${option.argChoices.map((choice) => cellCode(choice)).join(', ')}`);
  const description = cellText(option.description) + (notes.length > 0 ? ` (${notes.join('; ')})` : '');
  const fallback =
    option.defaultValueDescription ??
    (option.defaultValue === undefined ? undefined : JSON.stringify(option.defaultValue));
  return [cellCode(option.flags), description, fallback === undefined ? '' : cellCode(fallback)];
}

/** The help option appears once, under the global options, not in every command's table. */
function isHelpOption(option: Option): boolean {
  return option.long === '--help';
}

function allCommands(command: Command): Command[] {
  return command.commands.filter((child) => child.name() !== 'help').flatMap((child) => [child, ...allCommands(child)]);
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

function depth(command: Command): number {
  let levels = 0;
  for (let current = command.parent; current; current = current.parent) levels++;
  return levels;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
