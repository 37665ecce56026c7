import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CheckDeliverableOptions, DeliverableCheck } from '../../engine/deliverable/check-deliverable.js';
import { NotAFederationError } from '../../core/errors.js';
import { federationContext, printJson, type CliIo, type CommandContext } from '../io.js';
import { nonEmptyPath } from '../option-parsers.js';

/** The federation the command runs in, if any: outside one there is no deliverableSchema (a broken config is still an error). */
function federationIfAny(command: Command, io: CliIo): CommandContext | undefined {
  try {
    return federationContext(command, io);
  } catch (error) {
    if (error instanceof NotAFederationError) return undefined;
    throw error;
  }
}

export function registerDeliverable(program: Command, io: CliIo): void {
  const deliverable = program.command('deliverable').description("a deliverable team's output document");
  deliverable
    .command('check')
    .description(
      'check a deliverable against the documentation standards (and deliverableSchema); exit 2 on violations',
    )
    .argument('<file>', 'the deliverable (Markdown, or .json)', nonEmptyPath('a file'))
    .option(
      '--schema <file>',
      'JSON Schema to validate with (default: deliverableSchema from federate.config.json)',
      nonEmptyPath('a file'),
    )
    .option('--json', 'print {file, ok, violations, summary} as JSON')
    .action(async (file: string, options: { schema?: string; json?: boolean }, command: Command) => {
      // Loaded on use: the Markdown parser and ajv would otherwise slow every fed command down (fed event runs often).
      const { checkDeliverable, DeliverableRejectedError } =
        await import('../../engine/deliverable/check-deliverable.js');
      const { checkFederationDeliverable } = await import('../../engine/deliverable/federation-deliverable.js');
      const path = resolve(io.cwd, file);
      const schema: CheckDeliverableOptions =
        options.schema === undefined ? {} : { schemaPath: resolve(io.cwd, options.schema), schemaLabel: '--schema' };
      const ctx = federationIfAny(command, io);
      const check: DeliverableCheck = ctx
        ? await checkFederationDeliverable(ctx.fed, path, schema)
        : checkDeliverable(path, schema);
      const shown = relative(io.cwd, check.file) || check.file;
      if (options.json) printJson(io, check);
      else if (check.ok) {
        const s = check.summary;
        io.stdout(
          `${shown}: ok — ${s.word_count} words, ${s.sections.length} sections, ${s.code_blocks.length} code blocks, ${s.diagrams.length} diagrams\n`,
        );
      } else io.stdout(check.violations.map((v) => `${shown}:${v.line}: ${v.rule}: ${v.message}\n`).join(''));
      if (!check.ok) throw new DeliverableRejectedError(check, shown);
    });
}
