import type { Command } from 'commander';
import { federationContext, printJson, type CliIo } from '../io.js';

export function registerConfig(program: Command, io: CliIo): void {
  const config = program.command('config').description('inspect federate.config.json');
  config
    .command('show')
    .description('validate the config and print it with defaults and environment overrides applied')
    .option('--json', 'print as JSON')
    .action((options: { json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      if (options.json) return printJson(io, ctx.config.config);
      const source = ctx.config.exists ? ctx.config.file : `${ctx.config.file} (absent: all defaults)`;
      io.stdout(`# ${source}\n${JSON.stringify(ctx.config.config, null, 2)}\n`);
    });
}
