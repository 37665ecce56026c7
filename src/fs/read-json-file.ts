import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { CorruptFileError } from '../errors.js';
import { zodProblems } from '../schema/problems.js';
import { parseJsonText } from './json-text.js';

/**
 * Parse the text of a file fed manages with its schema. A file that is not JSON, or not the format, is a
 * CorruptFileError naming the file and every problem (line and column for bad JSON) — never reset.
 */
export function parseJsonFile<T>(text: string, file: string, schema: z.ZodType<T>): T {
  const json = parseJsonText(text);
  if (!json.ok) throw new CorruptFileError(file, `not valid JSON at line ${json.line}, column ${json.column} (${json.message})`);
  const parsed = schema.safeParse(json.value, { reportInput: true });
  if (!parsed.success) throw new CorruptFileError(file, zodProblems(parsed.error).map((p) => `${p.path}: ${p.message}`).join('; '));
  return parsed.data;
}

/** Read and parse a file with its schema; undefined when the file does not exist. */
export function readJsonFile<T>(file: string, schema: z.ZodType<T>): T | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseJsonFile(text, file, schema);
}
