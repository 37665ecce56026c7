import { readBoxFile } from './parse-signal-file.js';

/**
 * The value of a box file when it is valid, else undefined — for lookups that only care about usable
 * signals and acks (reporting invalid files is the reader's and the consumer's job). A file that vanished
 * meanwhile is simply not there.
 */
export function readValidFile<T, A = undefined>(
  path: string,
  judge: (bytes: Buffer) => { ok: true; value: T } | { ok: false },
  /** What a missing file gives, when the caller must tell it from an invalid one. */
  absent: A = undefined as A,
): T | undefined | A {
  try {
    const read = readBoxFile(path);
    if (!read.bytes) return undefined;
    const judged = judge(read.bytes);
    return judged.ok ? judged.value : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return absent;
    throw error;
  }
}
