import type { z } from 'zod';

/**
 * The valid records of an append-only JSON Lines journal (lifecycle journal, federation journal, runs
 * journal), oldest first. A line torn by a crash mid-append, cut by a tail window, or written by a
 * foreign tool is not a record: it is skipped, never fatal — the journal's writers repair their own tail.
 */
export function parseJsonLines<T>(text: string, schema: z.ZodType<T>): T[] {
  const records: T[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) records.push(parsed.data);
  }
  return records;
}
