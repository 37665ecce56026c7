import { join } from 'node:path';

/**
 * `<box>/archive/`: signals moved out of a live box by `fed signal archive`, with their ack files. A
 * reader of the box lists only its own directory, where `archive` is not a signal file name, so the actor
 * and the monitor never see archived signals; `fed signal list --all` and `fed signal show` read both.
 */
export const ARCHIVE_DIR = 'archive';

export function archiveDirectoryOf(box: string): string {
  return join(box, ARCHIVE_DIR);
}
