import type { Command } from 'commander';
import { chooseTelemetry, createFederation, type TelemetryChoice } from '../../apps/init/init-federation.js';
import { initTarget } from '../../apps/init/locate.js';
import { globalOptions, printJson, type CliIo } from '../io.js';

export function registerInit(program: Command, io: CliIo): void {
  program
    .command('init')
    .description('create a federation here (or at --root): config, meta signal boxes, skills folder, empty registry')
    .option('--name <federationName>', 'persona name used as the @handle in the chat channel')
    .option('--description <text>', 'human-readable purpose of the federation')
    .option('--json', 'print the result as JSON')
    .action(async (options: { name?: string; description?: string; json?: boolean }, command: Command) => {
      const root = initTarget({ root: globalOptions(command).root, env: io.env, cwd: io.cwd });
      const telemetry = await chooseTelemetry(root, io.env);
      const { result, shared } = await createFederation(
        root,
        {
          federationName: options.name,
          description: options.description,
          telemetry: telemetry?.enabled,
          names: { federationName: '--name', description: '--description' },
        },
        io.env,
      );
      for (const warning of [...result.warnings, ...(shared?.notes ?? [])]) io.stderr(`warning: ${warning}\n`);
      if (options.json)
        return printJson(io, {
          root: result.root,
          created: result.created,
          ...(telemetry && { telemetry: { enabled: telemetry.enabled, collector: telemetry.url } }),
          ...(shared && { registry: { location: shared.location, joined: shared.joined, teams: shared.teams } }),
        });
      const name = result.config.config.federationName;
      const registryLine = shared
        ? shared.joined
          ? `joined federation "${name}" (${shared.teams} team${shared.teams === 1 ? '' : 's'}) at ${shared.location}\n`
          : `created federation "${name}" at ${shared.location}\n`
        : '';
      if (result.created.length === 0)
        io.stdout(`${registryLine}federation at ${root} is already initialised; nothing to do\n`);
      else
        io.stdout(
          `initialised federation at ${root}\n${result.created.map((p) => `  created ${p}\n`).join('')}${registryLine}${telemetry ? telemetryLine(telemetry) : ''}`,
        );
    });
}

function telemetryLine(choice: TelemetryChoice): string {
  return choice.enabled
    ? `telemetry: on (a collector answers at ${choice.url})\n`
    : `telemetry: off (no collector answers at ${choice.url}); to turn it on, run one there and set "telemetry": { "enabled": true } in federate.config.json\n`;
}
