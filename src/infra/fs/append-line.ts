import { appendFileSync, closeSync, fstatSync, fsyncSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensureDirectory } from './ensure-directory.js';
import { openForAppend } from './open-for-append.js';
import { readFileTail } from './read-json-file.js';
import type { WriteOptions } from './atomic-write.js';

/**
 * Append one JSON line to an append-only journal (runs journal, federation journal), durably by default.
 * A line torn by a crash mid-append gets its newline first, so it cannot swallow this one; readers skip
 * the torn fragment. One `write` of a line under PIPE_BUF-ish size from O_APPEND is not interleaved with
 * another process's, so concurrent appenders each keep their lines whole. A link or FIFO at the path is
 * refused (openForAppend), never written through. Returns the size of the file appended to, after the line
 * (of that file: one renamed away meanwhile is still the one measured).
 */
export function appendJsonLine(file: string, value: unknown, options: WriteOptions = {}): number {
  ensureDirectory(dirname(file), options);
  const tail = readFileTail(file, 1, 'move it aside; fed starts a new journal')?.tail.toString('utf8') ?? '';
  const prefix = tail.length > 0 && tail !== '\n' ? '\n' : '';
  const fd = openForAppend(file, 'move it aside; fed starts a new journal');
  try {
    appendFileSync(fd, `${prefix}${JSON.stringify(value)}\n`);
    if (options.durable ?? true) fsyncSync(fd);
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}
