import { appendFileSync, closeSync, fsync, ftruncateSync } from 'node:fs';
import { writeFileAtomicAsync, type ReplaceOptions, type WriteOptions } from '../../infra/fs/atomic-write.js';
import { toJsonText } from '../../core/json-text.js';
import { readFileTail, readIdentifiedJsonFile, readJsonFile } from '../../infra/fs/read-json-file.js';
import { openForAppend } from '../../infra/fs/open-for-append.js';
import { workspacePaths } from './file-layout.js';
import {
  envelopeSchema,
  isWellFormedEnvelope,
  journalLineSchema,
  type JournalLine,
  type LifecycleEnvelope,
} from '../../core/schema/lifecycle-state.js';
import { lastJsonLines } from '../../core/schema/json-lines.js';

/** The envelope as stored, or undefined when the team has no lifecycle state yet. Broken files are reported, never replaced. */
export function readEnvelope(workspace: string): LifecycleEnvelope | undefined {
  return readJsonFile(workspacePaths(workspace).envelope, envelopeSchema, {}, isWellFormedEnvelope);
}

/** readEnvelope with the identity of the file read (fileIdentity): the envelope's version. */
export function readIdentifiedEnvelope(workspace: string): { value: LifecycleEnvelope; identity: string } | undefined {
  return readIdentifiedJsonFile(workspacePaths(workspace).envelope, envelopeSchema, isWellFormedEnvelope);
}

/**
 * Replace the envelope. Only a holder of the lifecycle section writes it, and the section's lock file lives
 * in the state folder, so the folder is there: no mkdir here. Its fsyncs wait on the thread pool
 * (writeFileAtomicAsync): a launcher applying several teams' events waits for one team's disk without
 * holding up the others.
 */
export async function writeEnvelope(
  workspace: string,
  envelope: LifecycleEnvelope,
  options: ReplaceOptions = {},
): Promise<void> {
  const paths = workspacePaths(workspace);
  await writeFileAtomicAsync(paths.envelope, toJsonText(envelope), options);
}

/** How much of the journal's end is read to find its last line (lines are small; one is enough). */
const TAIL_BYTES = 64 * 1024;

/** The last `bytes` of the journal and its size (empty when there is no journal yet). */
function readTail(file: string, bytes: number): { tail: Buffer; size: number } {
  return readFileTail(file, bytes, 'move it aside; fed starts a new journal') ?? { tail: Buffer.alloc(0), size: 0 };
}

function readTailText(file: string, bytes: number): string {
  return readTail(file, bytes).tail.toString('utf8');
}

/** The last `count` journal lines, oldest first. */
export function readJournalTail(workspace: string, count: number): JournalLine[] {
  const text = readTailText(workspacePaths(workspace).journal, TAIL_BYTES * Math.max(1, Math.ceil(count / 100)));
  return lastJsonLines(text, journalLineSchema, count);
}

/**
 * Append the lines whose `seq` the journal does not have yet, in one write, and fsync when durable. Called
 * after every envelope write and again on restore, so a crash between the two never loses a line and a
 * repeat never duplicates one. A torn last line (a crash mid-append) is cut off first: the envelope still
 * owes that line, so it is written again whole, and the journal never keeps a fragment.
 */
export async function appendJournalLines(
  workspace: string,
  lines: readonly JournalLine[],
  options: WriteOptions = {},
): Promise<number> {
  if (lines.length === 0) return 0;
  const file = workspacePaths(workspace).journal;
  const { tail, size } = readTail(file, TAIL_BYTES);
  const lastSeq = lastJsonLines(tail.toString('utf8'), journalLineSchema, 1)[0]?.seq ?? 0;
  const missing = lines.filter((line) => line.seq > lastSeq);
  if (missing.length === 0) return 0;
  // The state folder is there: the lifecycle store makes sure of it when it checks the workspace.
  // Never through a link an agent planted at the journal's path (openForAppend).
  const fd = openForAppend(file, 'move it aside; fed starts a new journal');
  try {
    const torn = tail.length > 0 && tail[tail.length - 1] !== 0x0a ? tail.length - 1 - tail.lastIndexOf(0x0a) : 0;
    // Lines are a few hundred bytes, so a torn one always ends inside the 64 KiB window.
    if (torn > 0) ftruncateSync(fd, size - Math.min(torn, tail.length));
    appendFileSync(fd, missing.map((line) => JSON.stringify(line)).join('\n') + '\n');
    // On the thread pool, as the envelope's (writeEnvelope): the process goes on while the disk catches up.
    if (options.durable ?? true)
      await new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
  } finally {
    closeSync(fd);
  }
  return missing.length;
}
