import type { Command } from 'commander';
import { ADAPTERS, adapterFor, DEFAULT_ADAPTER, type BackendAdapter } from '../../adapters/index.js';
import { InvalidInputError } from '../../core/errors.js';
import { migrateIntoBackend, migrateIntoFiles, type MigrateResult } from '../../apps/migrate/migrate-federation.js';
import { federationContext, printJson, type CliIo } from '../io.js';

/** Why `fed migrate` refuses: none of `adapters` is the configured backend, and how to configure one. */
function notConfigured(adapters: readonly BackendAdapter[]): string {
  const titles = adapters.map((adapter) => adapter.title).join(' or ');
  const hints = adapters.flatMap((adapter) => (adapter.selectHint ? [adapter.selectHint] : [])).join('; or ');
  return `no ${titles} backend is configured: ${hints} (see fed config show)`;
}

function render(io: CliIo, result: MigrateResult, json: boolean | undefined): void {
  if (json) return printJson(io, result);
  for (const bad of result.invalid)
    io.stderr(`warning: ${bad.path} (inbox of ${bad.party}) is not a valid signal and was not copied: ${bad.reason}\n`);
  io.stdout(
    `copied ${result.from} → ${result.to}: ${result.teams} team(s), ${result.signals} signal(s), ` +
      `${result.acknowledgments} acknowledgment(s), ${result.deliveryFacts} delivery fact(s), ${result.lifecycles} lifecycle(s), ${result.keptRuns} earlier run(s), ` +
      `${result.journalLines} journal line(s), ${result.federationRecords} federation journal record(s), ${result.teamFiles} team file(s), ${result.transcripts} transcript file(s)\n`,
  );
}

export function registerMigrate(program: Command, io: CliIo): void {
  const migrate = program
    .command('migrate')
    .description(
      'copy this federation between backends (files ⇄ NATS JetStream) without losing a signal, an ack or a lifecycle state; stop its processes first',
    );
  // One `to-<type>` per backend of the registry but files, and `to-files` back from whichever is configured.
  const others = ADAPTERS.filter((adapter) => adapter !== DEFAULT_ADAPTER);
  for (const adapter of others) {
    migrate
      .command(`to-${adapter.type}`)
      .description(`copy the file federation here into the configured ${adapter.title} backend (safe to run again)`)
      .option('--json', 'print the counts as JSON')
      .action(async (options: { json?: boolean }, command: Command) => {
        const ctx = federationContext(command, io);
        if (adapterFor(ctx.fed.config) !== adapter) throw new InvalidInputError(notConfigured([adapter]));
        render(io, await migrateIntoBackend(ctx.fed), options.json);
      });
  }
  migrate
    .command('to-files')
    .description(
      `copy the configured ${others.map((adapter) => adapter.title).join(' or ')} federation into files here; directory teams get their workspace under this root (safe to run again)`,
    )
    .option('--json', 'print the counts as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      if (adapterFor(ctx.fed.config) === DEFAULT_ADAPTER) throw new InvalidInputError(notConfigured(others));
      render(io, await migrateIntoFiles(ctx.fed), options.json);
    });
}
