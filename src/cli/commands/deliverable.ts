import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CheckDeliverableOptions } from '../../deliverable/check-deliverable.js';
import { NotAFederationError } from '../../errors.js';
import { federationContext, printJson, type CliIo } from '../io.js';

/**
 * The schema to validate with: `--schema`, else `deliverableSchema` of the federation the command runs
 * in (relative to its root). Outside any federation there is none; a broken config is still an error.
 */
function schemaOptions(option: string | undefined, command: Command, io: CliIo): CheckDeliverableOptions {
  if (option !== undefined) return { schemaPath: resolve(io.cwd, option), schemaLabel: '--schema' };
  let ctx: ReturnType<typeof federationContext>;
  try {
    ctx = federationContext(command, io);
  } catch (error) {
    if (error instanceof NotAFederationError) return {};
    throw error;
  }
  const configured = ctx.config.config.deliverableSchema;
  if (configured === undefined) return {};
  return { schemaPath: resolve(ctx.root, configured), schemaLabel: `deliverableSchema (${configured}) in ${ctx.config.file}` };
}

export function registerDeliverable(program: Command, io: CliIo): void {
  const deliverable = program.command('deliverable').description("a deliverable team's output document");
  deliverable
    .command('check')
    .description('check a deliverable against the documentation standards (and deliverableSchema); exit 2 on violations')
    .argument('<file>', 'the deliverable (Markdown, or .json)')
    .option('--schema <file>', 'JSON Schema to validate with (default: deliverableSchema from federate.config.json)')
    .option('--json', 'print {file, ok, violations, summary} as JSON')
    .action(async (file: string, options: { schema?: string; json?: boolean }, command: Command) => {
      // Loaded on use: the Markdown parser and ajv would otherwise slow every fed command down (fed event runs often).
      const { checkDeliverable, DeliverableRejectedError } = await import('../../deliverable/check-deliverable.js');
      const check = checkDeliverable(resolve(io.cwd, file), schemaOptions(options.schema, command, io));
      const shown = relative(io.cwd, check.file) || check.file;
      if (options.json) printJson(io, check);
      else if (check.ok) {
        const s = check.summary;
        io.stdout(`${shown}: ok — ${s.word_count} words, ${s.sections.length} sections, ${s.code_blocks.length} code blocks, ${s.diagrams.length} diagrams\n`);
      } else io.stdout(check.violations.map((v) => `${shown}:${v.line}: ${v.rule}: ${v.message}\n`).join(''));
      if (!check.ok) throw new DeliverableRejectedError(check, shown);
    });
}
