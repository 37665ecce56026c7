import type { Command } from 'commander';
import { JSON_SCHEMA_NAMES, jsonSchemaFor } from '../../core/schema/json-schema.js';
import { printJson, type CliIo } from '../io.js';

export function registerSchema(program: Command, io: CliIo): void {
  program
    .command('schema')
    .description('print the JSON Schema of a fed file format, generated from the schemas fed validates with')
    .argument('<name>', `format: ${JSON_SCHEMA_NAMES.join(' or ')}`)
    .action((name: string) => {
      printJson(io, jsonSchemaFor(name));
    });
}
