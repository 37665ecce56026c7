import { appendFileSync, closeSync } from 'node:fs';
import { dirname } from 'node:path';
import { InvalidInputError } from '../../core/errors.js';
import { ensureDirectory } from '../../infra/fs/ensure-directory.js';
import { openForAppend } from '../../infra/fs/open-for-append.js';
import { learningEntrySchema, type LearningEntry } from '../../core/schema/learning-log.js';
import { zodProblemText } from '../../core/schema/problems.js';
import { parseJsonLines } from '../../core/schema/json-lines.js';
import { readTextFile } from '../../infra/fs/read-json-file.js';

/**
 * Append entries to a learning log (docs/design/spec.md §2.5), one JSON object per line. The log is append-only and has
 * one writer (the team's agent), so there is nothing to replace atomically: all lines go out in a single
 * write, and a line is only ever added whole or, if the writer dies mid-write, cut at the end — which a
 * reader skips as one unparseable last line. Every entry is validated first, so nothing invalid is written.
 */
export function appendLearningEntries(file: string, entries: readonly LearningEntry[]): void {
  if (entries.length === 0) return;
  const lines = entries.map((entry, index) => {
    const parsed = learningEntrySchema.safeParse(entry, { reportInput: true });
    if (!parsed.success) {
      const problems = zodProblemText(parsed.error);
      throw new InvalidInputError(`learning-log entry ${index + 1} for ${file} is invalid: ${problems}`);
    }
    return `${JSON.stringify(parsed.data)}\n`;
  });
  ensureDirectory(dirname(file));
  const fd = openForAppend(file);
  try {
    appendFileSync(fd, lines.join(''));
  } finally {
    closeSync(fd);
  }
}

/**
 * A learning log's entries, oldest first by their timestamps (`fed team learnings`), and how many of its
 * lines are not entries: the team's agent writes the log, and a torn or malformed line it left is
 * skipped and counted, never fatal. Empty when the team has written none.
 */
export function readLearningLog(file: string): { entries: LearningEntry[]; skippedLines: number } {
  const text = readTextFile(file, 'move it aside; the team starts a new learning log') ?? '';
  const entries = parseJsonLines(text, learningEntrySchema).sort(
    (a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp),
  );
  const lines = text.split('\n').filter((line) => line.trim()).length;
  return { entries, skippedLines: lines - entries.length };
}
