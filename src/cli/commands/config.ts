import type { Command } from 'commander';
import { backendConfigFiles, redactedConfig } from '../../adapters/index.js';
import { missingConfigFiles } from '../../infra/config/referenced-files.js';
import { CliExit, federationContext, printJson, type CliIo } from '../io.js';

export function registerConfig(program: Command, io: CliIo): void {
  const config = program.command('config').description('inspect federate.config.json');
  config
    .command('show')
    .description(
      'validate the config and the files it names, and print it with defaults and environment overrides applied',
    )
    .option('--json', 'print as JSON')
    .action((options: { json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const missing = missingConfigFiles(ctx.root, ctx.config.config, backendConfigFiles(ctx.config.config));
      const shown = redactedConfig(ctx.config.config);
      if (options.json) printJson(io, shown);
      else {
        const source = ctx.config.exists ? ctx.config.file : `${ctx.config.file} (absent: all defaults)`;
        io.stdout(`# ${source}\n${JSON.stringify(shown, null, 2)}\n`);
      }
      for (const problem of missing) io.stderr(`fed: ${ctx.config.file}: ${problem.path}: ${problem.message}\n`);
      if (missing.length > 0) throw new CliExit(2);
    });
}
