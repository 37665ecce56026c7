import { appendFileSync, closeSync, fsyncSync, openSync, readSync, fstatSync } from 'node:fs';
import { writeFileAtomic, type WriteOptions } from '../fs/atomic-write.js';
import { ensureDirectory } from '../fs/ensure-directory.js';
import { toJsonText } from '../fs/json-text.js';
import { readJsonFile } from '../fs/read-json-file.js';
import { workspacePaths } from '../layout.js';
import { envelopeSchema, journalLineSchema, type JournalLine, type LifecycleEnvelope } from '../schema/lifecycle-state.js';

/** The envelope as stored, or undefined when the team has no lifecycle state yet. Broken files are reported, never replaced. */
export function readEnvelope(workspace: string): LifecycleEnvelope | undefined {
  return readJsonFile(workspacePaths(workspace).envelope, envelopeSchema);
}

export function writeEnvelope(workspace: string, envelope: LifecycleEnvelope, options: WriteOptions = {}): void {
  const paths = workspacePaths(workspace);
  ensureDirectory(paths.state, options);
  writeFileAtomic(paths.envelope, toJsonText(envelope), options);
}

/** How much of the journal's end is read to find its last line (lines are small; one is enough). */
const TAIL_BYTES = 64 * 1024;

export function readTailText(file: string, bytes: number): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Journal entries in `text`; a line cut short by a crash mid-append, or cut by the tail window, is not one. */
function parseJournalLines(text: string): JournalLine[] {
  const lines: JournalLine[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    try {
      const parsed = journalLineSchema.safeParse(JSON.parse(raw));
      if (parsed.success) lines.push(parsed.data);
    } catch {
      // torn or partial line
    }
  }
  return lines;
}

/** The last `count` journal lines, oldest first. */
export function readJournalTail(workspace: string, count: number): JournalLine[] {
  const text = readTailText(workspacePaths(workspace).journal, TAIL_BYTES * Math.max(1, Math.ceil(count / 100)));
  return parseJournalLines(text).slice(-count);
}

/**
 * Append the lines whose `seq` the journal does not have yet, in one write, and fsync when durable. Called
 * after every envelope write and again on restore, so a crash between the two never loses a line and a
 * repeat never duplicates one. A torn last line gets a newline first so it cannot swallow the next one.
 */
export function appendJournalLines(workspace: string, lines: readonly JournalLine[], options: WriteOptions = {}): number {
  if (lines.length === 0) return 0;
  const file = workspacePaths(workspace).journal;
  const tail = readTailText(file, TAIL_BYTES);
  const lastSeq = parseJournalLines(tail).at(-1)?.seq ?? 0;
  const missing = lines.filter((line) => line.seq > lastSeq);
  if (missing.length === 0) return 0;
  const prefix = tail.length > 0 && !tail.endsWith('\n') ? '\n' : '';
  ensureDirectory(workspacePaths(workspace).state, options);
  const fd = openSync(file, 'a');
  try {
    appendFileSync(fd, prefix + missing.map((line) => JSON.stringify(line)).join('\n') + '\n');
    if (options.durable ?? true) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return missing.length;
}
