import type { Command } from 'commander';
import { ADAPTERS, adapterFor, DEFAULT_ADAPTER, openBackend, type BackendAdapter } from '../../adapters/index.js';
import { InvalidInputError } from '../../core/errors.js';
import { copyFederation, type CopyFederationResult } from '../../engine/migration/copy-federation.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { fromFileFederation, intoFileFederation } from '../../engine/migration/file-workspaces.js';
import type { Federation } from '../../engine/context.js';
import { federationContext, printJson, type CliIo } from '../io.js';

/** Why `fed migrate` refuses: none of `adapters` is the configured backend, and how to configure one. */
function notConfigured(adapters: readonly BackendAdapter[]): string {
  const titles = adapters.map((adapter) => adapter.title).join(' or ');
  const hints = adapters.flatMap((adapter) => (adapter.selectHint ? [adapter.selectHint] : [])).join('; or ');
  return `no ${titles} backend is configured: ${hints} (see fed config show)`;
}

/** The file federation here, the other side of a copy: the default backend, whichever the config selects. */
function fileSide({ root, config, env }: Federation): FederationBackend {
  return openBackend({ root, config: { ...config, backend: { type: DEFAULT_ADAPTER.type } }, env });
}

function render(
  io: CliIo,
  result: CopyFederationResult,
  from: FederationBackend,
  to: FederationBackend,
  json: boolean | undefined,
): void {
  if (json) return printJson(io, { from: from.registry.location, to: to.registry.location, ...result });
  for (const bad of result.invalid)
    io.stderr(`warning: ${bad.path} (inbox of ${bad.party}) is not a valid signal and was not copied: ${bad.reason}\n`);
  io.stdout(
    `copied ${from.registry.location} → ${to.registry.location}: ${result.teams} team(s), ${result.signals} signal(s), ` +
      `${result.acknowledgments} acknowledgment(s), ${result.deliveryFacts} delivery fact(s), ${result.lifecycles} lifecycle(s), ${result.keptRuns} earlier run(s), ` +
      `${result.journalLines} journal line(s), ${result.federationRecords} federation journal record(s)\n`,
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
        const target = ctx.fed.backend;
        const source = fileSide(ctx.fed);
        render(io, await copyFederation(source, target, fromFileFederation(ctx.root)), source, target, options.json);
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
      const source = ctx.fed.backend;
      const target = fileSide(ctx.fed);
      render(io, await copyFederation(source, target, intoFileFederation(ctx.root)), source, target, options.json);
    });
}
