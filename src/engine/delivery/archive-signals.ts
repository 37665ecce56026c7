import { existsSync, linkSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { FILE_BACKEND_NAME } from '../../adapters/file/open-file-backend.js';
import { FedError, RefusedError } from '../../core/errors.js';
import {
  fsyncDirectory,
  linkFileNoClobber,
  suffixedName,
  unlinkQuietly,
  type WriteOptions,
} from '../../infra/fs/atomic-write.js';
import type { DeliveryFactStore } from '../../ports/delivery-fact-store.js';
import { readRegistry } from '../../adapters/file/registry-file.js';
import { META } from '../../core/schema/common.js';
import { deadlineTable } from '../../core/deadlines.js';
import { DeliveryInspector } from './delivery-inspector.js';
import { readValidFile } from '../../adapters/file/signals/read-valid-file.js';
import { SIGNAL_BOXES, type SignalBox } from '../../core/schema/signal.js';
import { judgeAck, judgeSignal, type BoxExpectation } from '../../core/schema/judge-signal.js';
import { withAck } from '../../adapters/file/signals/read-signals.js';
import { type SignalEntry } from '../../ports/signal-transport.js';
import { resolveSignalWorkspace, type SignalWorkspace } from '../../adapters/file/signals/resolve-workspace.js';
import {
  ACK_FILE_SUFFIX,
  ackFileName,
  isAckFileName,
  isSignalFileName,
  nameHint,
} from '../../adapters/file/signals/signal-file-name.js';
import { archiveDirectoryOf } from '../../adapters/file/archive/box-archive.js';
import { listDirectory } from '../../infra/fs/list-directory.js';
import type { Federation } from '../context.js';

export interface ArchiveSignalsRequest {
  /** One party (a team id or domain, or `meta`); default: meta and every registered team. */
  team?: string;
  /** Only signals sent at least this long ago (milliseconds). */
  olderThanMs: number;
}

export interface ArchiveSignalsOptions extends WriteOptions {
  now?: Date;
}

export interface BoxArchiveResult {
  team: string;
  box: SignalBox;
  /** Signals moved to `<box>/archive/` by this call. */
  archived: number;
  /** Signal files left in the live box (invalid ones included). */
  kept: number;
  /** Why the box was left alone (its workspace is one fed refuses to use); only when archiving every team. */
  skipped?: string;
}

/**
 * `fed signal archive`: move the signals that are done — acknowledged, or answered — and older than the
 * cutoff out of the live boxes into `<box>/archive/`, each inbox signal with its ack file; in an outbox,
 * a copy whose inbox copy is acknowledged or answered. Nothing is deleted: each file gets its archive name
 * by a hard link (no clobber) before its live name is removed, so a crash leaves two names, never none,
 * and the next run finishes the move.
 */
export async function archiveSignals(
  fed: Federation,
  request: ArchiveSignalsRequest,
  options: ArchiveSignalsOptions = {},
): Promise<BoxArchiveResult[]> {
  const now = options.now ?? fed.now();
  const cutoff = now.getTime() - request.olderThanMs;
  const { backend, root } = fed;
  if (backend.name !== FILE_BACKEND_NAME) {
    throw new RefusedError(
      'ARCHIVE_UNSUPPORTED',
      `fed signal archive moves signal files into each box's archive/ folder, and this federation keeps its signals in the ${backend.name} backend, ` +
        'where nothing is archived: a signal stays in its box and keeps its delivery state (fed signal list --state filters by it)',
    );
  }
  const registry = readRegistry(root);
  const parties = request.team === undefined ? [META, ...registry.teams.map((t) => t.domainId)] : [request.team];
  const inspector = new DeliveryInspector(backend, registry, deadlineTable(), now);
  const durable = options.durable ?? true;
  const results: BoxArchiveResult[] = [];
  for (const party of parties) {
    let workspace: SignalWorkspace;
    try {
      workspace = resolveSignalWorkspace(root, party, { role: 'team (--team)', allowArchived: true, registry });
    } catch (error) {
      // One team whose workspace is gone or refused must not keep every other box from being archived.
      if (request.team !== undefined || !(error instanceof FedError)) throw error;
      for (const box of SIGNAL_BOXES) results.push({ team: party, box, archived: 0, kept: 0, skipped: error.message });
      continue;
    }
    for (const box of SIGNAL_BOXES) {
      const dir = workspace[box];
      const names = listDirectory(dir);
      const signalNames = names.filter(isSignalFileName);
      const done = await doneSignals(dir, names, { owner: workspace.id, box }, cutoff, inspector, backend.delivery);
      if (box === 'inbox') finishInterruptedMoves(dir, names, durable);
      // The archive folder is checked (and made) once per box: a link there is refused, never written through.
      if (done.length) fed.folderForWrite(archiveDirectoryOf(dir), workspace.entry);
      for (const entry of done) moveToArchive(dir, entry, box === 'inbox');
      if (done.length && durable) {
        fsyncDirectory(archiveDirectoryOf(dir));
        fsyncDirectory(dir);
      }
      results.push({ team: workspace.id, box, archived: done.length, kept: signalNames.length - done.length });
    }
  }
  return results;
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
  cutoff: number,
  inspector: DeliveryInspector,
  facts: DeliveryFactStore,
): Promise<SignalEntry[]> {
  const present = new Set(names);
  const done: SignalEntry[] = [];
  for (const file of names) {
    if (!isSignalFileName(file)) continue;
    const hint = nameHint(file);
    if (hint && hint.time > cutoff) continue;
    const path = join(dir, file);
    const message = readValidFile(path, (bytes) => judgeSignal(bytes, expect));
    if (!message || Date.parse(message.timestamp) > cutoff) continue;
    let entry: SignalEntry = { file, path, message };
    if (expect.box === 'inbox') {
      const ack = present.has(ackFileName(file)) ? readValidFile(join(dir, ackFileName(file)), judgeAck) : undefined;
      entry = { ...entry, message: withAck(message, ack && { ok: true, value: ack }) };
    }
    if (await isDone(entry, expect.box, inspector, facts)) done.push(entry);
  }
  return done;
}

async function isDone(
  entry: SignalEntry,
  box: SignalBox,
  inspector: DeliveryInspector,
  facts: DeliveryFactStore,
): Promise<boolean> {
  if (await facts.has(entry.message.id, 'answered')) return true;
  return box === 'inbox'
    ? entry.message.acknowledged === true
    : (await inspector.status(entry, box)).state === 'acknowledged';
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
