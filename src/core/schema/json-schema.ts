import { z } from 'zod';
import { InvalidInputError } from '../errors.js';
import { deliverableSummarySchema } from './deliverable-summary.js';
import { learningEntrySchema } from './learning-log.js';
import { signalAckSchema, signalMessageSchema } from './signal.js';

/**
 * JSON Schemas of fed's file formats for other tools (`fed schema <name>`), generated from the zod
 * schemas so they can never drift from what fed itself accepts. Refinements zod cannot express in JSON
 * Schema (a subject must not be only whitespace) are the only checks fed adds on top.
 */
const SCHEMAS = {
  signal: signalMessageSchema,
  ack: signalAckSchema,
  'learning-entry': learningEntrySchema,
  'deliverable-summary': deliverableSummarySchema,
} as const;

export type JsonSchemaName = keyof typeof SCHEMAS;
export const JSON_SCHEMA_NAMES = Object.keys(SCHEMAS) as JsonSchemaName[];

export function jsonSchemaFor(name: string): Record<string, unknown> {
  if (!Object.hasOwn(SCHEMAS, name)) {
    throw new InvalidInputError(`unknown schema "${name}"; available: ${JSON_SCHEMA_NAMES.join(', ')}`);
  }
  return z.toJSONSchema(SCHEMAS[name as JsonSchemaName]) as Record<string, unknown>;
}
