import { z } from 'zod';

/**
 * The zod primitives the machines' event schemas are built from. They live here, not in `src/core/schema`,
 * because `machines/` is a pure layer (xstate, zod and itself): `src/core/schema/common` re-exports them, so
 * there is still one declaration of each.
 */

/** How a rejected value is named in a message ("got …"); `src/core/schema/problems` uses it for every schema. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value === '' ? 'an empty string' : `"${truncate(value)}"`;
  if (typeof value === 'number') return Number.isInteger(value) ? `number ${value}` : `non-integer number ${value}`;
  return typeof value;
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** ISO 8601 date-time with a zone (`Z` or an offset), as every timestamp fed writes. */
export const isoTimestamp = z.iso.datetime({ offset: true });

export const nonEmptyString = z
  .string({ error: (issue) => `expected a non-empty string, got ${describeValue(issue.input)}` })
  .min(1, { error: 'expected a non-empty string, got an empty string' });
