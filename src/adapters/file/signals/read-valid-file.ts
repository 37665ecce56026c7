import { readBoxFile } from './parse-signal-file.js';

/**
 * The value of a box file when it is valid, else undefined — for lookups that only care about usable
 * signals and acks (reporting invalid files is the reader's and the consumer's job). A file that vanished
 * meanwhile is simply not there.
 */
export function readValidFile<T>(
  path: string,
  judge: (bytes: Buffer) => { ok: true; value: T } | { ok: false },
): T | undefined {
  try {
    const read = readBoxFile(path);
    if (!read.bytes) return undefined;
    const judged = judge(read.bytes);
    return judged.ok ? judged.value : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
