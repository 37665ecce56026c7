import { join } from 'node:path';
import type { BoxExpectation } from '../../schema/judge-signal.js';
import { readSignalBox, type SignalReadResult } from '../read-signals.js';

/**
 * `<box>/archive/`: signals moved out of a live box by `fed signal archive`, with their ack files. A
 * reader of the box lists only its own directory, where `archive` is not a signal file name, so the actor
 * and the monitor never see archived signals; `fed signal list --all` and `fed signal show` read both.
 */
export const ARCHIVE_DIR = 'archive';

export function archiveDirectoryOf(box: string): string {
  return join(box, ARCHIVE_DIR);
}

/** The valid signals and invalid files of a box's archive (none when nothing was archived yet). */
export function readArchivedSignals(box: string, expect: BoxExpectation): SignalReadResult {
  return readSignalBox(archiveDirectoryOf(box), expect);
}
