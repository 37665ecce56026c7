import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SentFact } from '../../../core/schema/delivery.js';
import type { BoxExpectation } from '../../../core/schema/judge-signal.js';
import { readSignalEntry } from '../signals/read-signal-entry.js';
import { readSignalBox } from '../signals/read-signals.js';
import { type SignalEntry, type SignalReadResult } from '../../../ports/signal-transport.js';
import { isSignalFileName, sameSubjectPattern } from '../signals/signal-file-name.js';

/**
 * `<box>/archive/`: signals moved out of a live box by `fed signal archive`, with their ack files. A
 * reader of the box lists only its own directory, where `archive` is not a signal file name, so the actor
 * and the monitor never see archived signals; `fed signal list --all` and `fed signal show` read both.
 * Only a box that is a folder has one: for another transport's box (its location is no folder) it is empty.
 */
export const ARCHIVE_DIR = 'archive';

export function archiveDirectoryOf(box: string): string {
  return join(box, ARCHIVE_DIR);
}

/** The valid signals and invalid files of a box's archive (none when nothing was archived yet). */
export function readArchivedSignals(box: string, expect: BoxExpectation): SignalReadResult {
  return readSignalBox(archiveDirectoryOf(box), expect);
}

/**
 * Archived signal `id` of a box, its ack merged in for an inbox. With the signal's sent fact only the
 * files named for its type and subject are read.
 */
export function findArchivedSignal(
  box: string,
  expect: BoxExpectation,
  id: string,
  sent: Pick<SentFact, 'type' | 'subject'> | undefined,
): SignalEntry | undefined {
  const dir = archiveDirectoryOf(box);
  const pattern = sent ? sameSubjectPattern(sent.type, sent.subject) : undefined;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
      return undefined;
    throw error;
  }
  for (const file of names) {
    if (!isSignalFileName(file) || (pattern && !pattern.test(file))) continue;
    const entry = readSignalEntry(dir, file, expect, id);
    if (entry) return entry;
  }
  return undefined;
}
