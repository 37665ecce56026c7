import { existsSync, linkSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncDirectory, linkFileNoClobber, suffixedName, unlinkQuietly } from '../../../infra/fs/atomic-write.js';
import { listDirectory } from '../../../infra/fs/list-directory.js';
import { judgeAck, judgeSignal, type BoxExpectation } from '../../../core/schema/judge-signal.js';
import type { ArchiveBoxOptions, BoxArchiveCount } from '../../../ports/signal-archive.js';
import type { SignalEntry } from '../../../ports/signal-transport.js';
import { readValidFile } from '../signals/read-valid-file.js';
import { withAck } from '../signals/read-signals.js';
import {
  ACK_FILE_SUFFIX,
  ackFileName,
  isAckFileName,
  isSignalFileName,
  nameHint,
} from '../signals/signal-file-name.js';
import { archiveDirectoryOf } from './box-archive.js';

/**
 * PartyArchive.archive for a box folder `dir`: the signals that are done move into `<box>/archive/`, each
 * inbox signal with its ack file. Nothing is deleted: each file gets its archive name by a hard link (no
 * clobber) before its live name is removed, so a crash leaves two names, never none, and the next run
 * finishes the move. `folderForWrite` checks (and makes) the archive folder before the first link: a link
 * there is refused, never written through.
 */
export async function archiveBox(
  dir: string,
  expect: BoxExpectation,
  options: ArchiveBoxOptions,
  folderForWrite: (folder: string) => void,
): Promise<BoxArchiveCount> {
  const durable = options.durable ?? true;
  const names = listDirectory(dir);
  const signalNames = names.filter(isSignalFileName);
  const done = await doneSignals(dir, names, expect, options);
  if (expect.box === 'inbox') finishInterruptedMoves(dir, names, durable);
  if (done.length) folderForWrite(archiveDirectoryOf(dir));
  for (const entry of done) moveToArchive(dir, entry, expect.box === 'inbox');
  if (done.length && durable) {
    fsyncDirectory(archiveDirectoryOf(dir));
    fsyncDirectory(dir);
  }
  return { archived: done.length, kept: signalNames.length - done.length };
}

/**
 * The valid signals of a box sent by the cutoff that are done. A fed-made name tells the second a signal
 * was sent, so only the signals whose name says they are old enough (or that another tool named) are read:
 * archiving from every monitor cycle costs a listing, not a parse of every live signal.
 */
async function doneSignals(
  dir: string,
  names: readonly string[],
  expect: BoxExpectation,
  { sentBy, done }: ArchiveBoxOptions,
): Promise<SignalEntry[]> {
  const present = new Set(names);
  const found: SignalEntry[] = [];
  for (const file of names) {
    if (!isSignalFileName(file)) continue;
    const hint = nameHint(file);
    if (hint && hint.time > sentBy) continue;
    const path = join(dir, file);
    const message = readValidFile(path, (bytes) => judgeSignal(bytes, expect));
    if (!message || Date.parse(message.timestamp) > sentBy) continue;
    let entry: SignalEntry = { file, path, message };
    if (expect.box === 'inbox') {
      const ack = present.has(ackFileName(file)) ? readValidFile(join(dir, ackFileName(file)), judgeAck) : undefined;
      entry = { ...entry, message: withAck(message, ack && { ok: true, value: ack }) };
    }
    if (await done(entry)) found.push(entry);
  }
  return found;
}

/**
 * Link the signal (then its ack, under the name the signal landed as) into the archive, then remove the
 * live names — the signal first, so no live signal ever loses its ack. A name already in the archive for
 * the same file (a run interrupted before the removal) is reused, not linked again.
 */
function moveToArchive(dir: string, entry: SignalEntry, withAck: boolean): void {
  const archive = archiveDirectoryOf(dir);
  const landed =
    linkedBefore(entry.path, archive, entry.file) ??
    linkFileNoClobber(entry.path, archive, entry.file, { durable: false });
  const ack = join(dir, ackFileName(entry.file));
  if (withAck && existsSync(ack)) linkIfAbsent(ack, join(archive, ackFileName(landed)));
  unlinkQuietly(entry.path);
  if (withAck) unlinkQuietly(ack);
}

/**
 * The archive name an interrupted run already gave this very file, if any: the names linkFileNoClobber
 * tries — `name`, `name-2`, … — up to the first free one.
 */
function linkedBefore(source: string, archive: string, name: string): string | undefined {
  for (let attempt = 1; ; attempt++) {
    const candidate = attempt === 1 ? name : suffixedName(name, attempt);
    if (!existsSync(join(archive, candidate))) return undefined;
    if (sameFile(source, join(archive, candidate))) return candidate;
  }
}

/** An ack left in the live inbox by a run that stopped between removing its signal and removing it. */
function finishInterruptedMoves(dir: string, names: readonly string[], durable: boolean): void {
  const present = new Set(names);
  const archive = archiveDirectoryOf(dir);
  let finished = false;
  for (const name of names) {
    if (!isAckFileName(name) || present.has(name.slice(0, -ACK_FILE_SUFFIX.length))) continue;
    if (!sameFile(join(dir, name), join(archive, name))) continue;
    unlinkQuietly(join(dir, name));
    finished = true;
  }
  if (finished && durable) fsyncDirectory(dir);
}

function linkIfAbsent(source: string, target: string): void {
  try {
    linkSync(source, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !sameFile(source, target)) throw error;
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    const [x, y] = [lstatSync(a), lstatSync(b)];
    return x.ino === y.ino && x.dev === y.dev;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
