import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type JournalLine, workspacePaths } from 'fed/testing';

/** Every journal line of a team, oldest first (the whole file, not just its tail). */
export function readWholeJournal(workspace: string): JournalLine[] {
  const file = workspacePaths(workspace).journal;
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as JournalLine);
}

/**
 * The exactly-once checks of the actor system: every signal id appears in the journal exactly once, every
 * signal has exactly one ack, the journal's seq runs 1..n without gaps, and meta received each transition
 * report exactly once.
 */
export function expectExactlyOnce(root: string, workspace: string, signalIds: readonly string[]): JournalLine[] {
  const journal = readWholeJournal(workspace);
  expect(journal.map((l) => l.seq)).toEqual(journal.map((_, i) => i + 1));
  const fromSignals = journal.filter((l) => l.signalId !== undefined).map((l) => l.signalId!);
  expect(new Set(fromSignals).size).toBe(fromSignals.length);
  expect([...fromSignals].sort()).toEqual([...signalIds].sort());

  const inbox = workspacePaths(workspace).inbox;
  const names = readdirSync(inbox);
  const signalFiles = names.filter((n) => n.endsWith('.json'));
  expect(signalFiles).toHaveLength(signalIds.length);
  for (const file of signalFiles) expect(names, `ack of ${file}`).toContain(`${file}.ack`);
  expect(names.filter((n) => n.endsWith('.ack'))).toHaveLength(signalFiles.length);

  const transitions = journal.filter((l) => l.from !== l.to).length;
  const metaInbox = workspacePaths(root).inbox;
  const reports = readdirSync(metaInbox)
    .filter((n) => n.endsWith('.json'))
    .map((n) => JSON.parse(readFileSync(join(metaInbox, n), 'utf8')) as { id: string });
  expect(new Set(reports.map((r) => r.id)).size).toBe(reports.length);
  expect(reports).toHaveLength(transitions);
  return journal;
}
