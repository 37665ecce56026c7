import type { z } from 'zod';

/**
 * The valid records of an append-only JSON Lines journal (lifecycle journal, federation journal, runs
 * journal), oldest first. A line torn by a crash mid-append, cut by a tail window, or written by a
 * foreign tool is not a record: it is skipped, never fatal — the journal's writers repair their own tail.
 */
export function parseJsonLines<T>(text: string, schema: z.ZodType<T>): T[] {
  return parseJsonRecords(text.split('\n'), schema);
}

/** `parseJsonLines`, and how many of its lines that are not blank were skipped as not records. */
export function countedJsonLines<T>(text: string, schema: z.ZodType<T>): { records: T[]; skipped: number } {
  return countedJsonRecords(text.split('\n'), schema);
}

/**
 * The last `count` valid records of JSON Lines `text`, oldest first: what `parseJsonLines(text).slice(-count)`
 * gives, found from the end, so a journal's whole window is not validated for its last lines.
 */
export function lastJsonLines<T>(text: string, schema: z.ZodType<T>, count: number): T[] {
  const records: T[] = [];
  let end = text.length;
  while (records.length < count && end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    records.push(...parseJsonRecords([text.slice(start, end)], schema));
    end = start - 1;
  }
  return records.reverse();
}

/** The valid records among JSON texts, one record each (a journal's lines, a stream's messages), in order; others are skipped. */
export function parseJsonRecords<T>(texts: Iterable<string>, schema: z.ZodType<T>): T[] {
  return countedJsonRecords(texts, schema).records;
}

/** `parseJsonRecords`, and how many texts that are not blank were skipped as not records. */
export function countedJsonRecords<T>(
  texts: Iterable<string>,
  schema: z.ZodType<T>,
): { records: T[]; skipped: number } {
  const records: T[] = [];
  let skipped = 0;
  for (const text of texts) {
    if (!text.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      skipped++;
      continue;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) records.push(parsed.data);
    else skipped++;
  }
  return { records, skipped };
}
