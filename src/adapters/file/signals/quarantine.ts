import { lstatSync, mkdirSync, renameSync, rmdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { RefusedError } from '../../../core/errors.js';
import {
  fsyncDirectory,
  linkFileNoClobber,
  publishFileNoClobber,
  suffixedName,
  unlinkQuietly,
  type WriteOptions,
} from '../../../infra/fs/atomic-write.js';
import { ensureDirectory } from '../../../infra/fs/ensure-directory.js';
import { parseJsonText, toJsonText } from '../../../core/json-text.js';
import { readFileBounded } from '../../../infra/fs/read-file-bounded.js';
import { workspacePaths } from '../file-layout.js';
import { quarantineReasonSchema, type QuarantineReason } from '../../../core/schema/signal.js';
import { readBoxFile, statKey } from './parse-signal-file.js';
import { judgeSignal, type BoxExpectation } from '../../../core/schema/judge-signal.js';
import { isAckFileName, isSignalFileName } from './signal-file-name.js';
import type { QuarantineOptions, QuarantineResult } from '../../../ports/signal-transport.js';
import { listDirectory } from '../../../infra/fs/list-directory.js';

/** `<workspace>/.fed/signals/quarantine/`: invalid files taken out of that workspace's boxes. */
export function quarantineDirectory(workspace: string): string {
  return join(workspacePaths(workspace).signals, 'quarantine');
}

/**
 * Move an invalid file out of a signal box so it stops being reported on every poll, without ever
 * deleting it (docs/design/invariants.md #4): it is hard-linked into the quarantine folder under a free name, a
 * `<name>.reason.json` saying why is written beside it, and only then is the box entry removed. A crash
 * in between leaves the file in both places, never in neither. `file` is an InvalidSignalFile of a reader.
 */
export function quarantineSignalFile(
  file: { path: string; reason: string },
  options: QuarantineOptions = {},
): QuarantineResult {
  const path = resolve(file.path);
  const box = dirname(path);
  const workspace = dirname(dirname(dirname(box)));
  const paths = workspacePaths(workspace);
  if (box !== paths.inbox && box !== paths.outbox) {
    throw new RefusedError(
      'NOT_A_SIGNAL_BOX',
      `${path} is not in a signal inbox or outbox (<workspace>/.fed/signals/{inbox,outbox}); fed quarantines only files of signal boxes`,
    );
  }
  const writeOptions: WriteOptions = { durable: options.durable ?? true };
  const quarantine = quarantineDirectory(workspace);
  ensureDirectory(quarantine, writeOptions);

  let landed: string;
  try {
    landed = moveNoClobber(path, quarantine, writeOptions);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new RefusedError(
      'SIGNAL_FILE_MISSING',
      `${path} no longer exists (another process moved it); nothing to quarantine`,
    );
  }
  const reason: QuarantineReason = {
    file: basename(path),
    originalPath: path,
    quarantinedAt: (options.now?.() ?? new Date()).toISOString(),
    reason: file.reason,
  };
  // `<landed>.reason.json` is free unless a quarantined file is itself called that; never replace it then.
  const reasonFile = publishFileNoClobber(quarantine, `${landed}.reason.json`, toJsonText(reason), {
    ...writeOptions,
    nameForAttempt: (_name, attempt) => `${landed}.reason-${attempt}.json`,
  });
  unlinkQuietly(path);
  if (writeOptions.durable) fsyncDirectory(box);
  return { path: join(quarantine, landed), reasonPath: join(quarantine, reasonFile) };
}

/**
 * Give `path` a name in `quarantine` without replacing anything there. A file (a FIFO too) is hard-linked
 * (its box name is removed later); a directory, which cannot be, is renamed onto an empty directory made
 * for it exclusively (a rename replaces only an empty directory), so it leaves the box at once.
 */
function moveNoClobber(path: string, quarantine: string, options: WriteOptions): string {
  if (!lstatSync(path).isDirectory()) return linkFileNoClobber(path, quarantine, basename(path), options);
  for (let attempt = 1; ; attempt++) {
    const candidate = attempt === 1 ? basename(path) : suffixedName(basename(path), attempt);
    try {
      mkdirSync(join(quarantine, candidate));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    try {
      renameSync(path, join(quarantine, candidate));
    } catch (error) {
      rmdirSync(join(quarantine, candidate));
      throw error;
    }
    if (options.durable ?? true) fsyncDirectory(quarantine);
    return candidate;
  }
}

/** `<landed>.reason.json` or `<landed>.reason-<n>.json` → `<landed>`. */
const REASON_FILE = /^(.+)\.reason(?:-\d+)?\.json$/;

/**
 * Give quarantined files of `workspace`'s inbox that are now valid signals back to the inbox. A file that
 * a foreign writer was still filling in place when it was quarantined shares its inode with the quarantined
 * copy, so it becomes complete there; moving it back (hard link without clobbering, then removing the
 * quarantine copy and its reason file) lets it be processed instead of being lost to a race. `checked`
 * remembers files already found invalid (by stat), so a poll re-reads only quarantined files that changed.
 * Returns the inbox paths of the files moved back.
 */
export function restoreSettledQuarantine(
  workspace: string,
  expect: BoxExpectation,
  checked: Map<string, string>,
  options: WriteOptions = {},
): string[] {
  const quarantine = quarantineDirectory(workspace);
  const inbox = workspacePaths(workspace).inbox;
  const names = listDirectory(quarantine);
  const restored: string[] = [];
  const present = new Set(names);
  for (const reasonName of names) {
    const landed = REASON_FILE.exec(reasonName)?.[1];
    if (landed === undefined || !present.has(landed)) continue;
    const path = join(quarantine, landed);
    // Runs at every consume: a file already judged is only stat'ed, never read again until it changes.
    let key: string;
    try {
      key = statKey(lstatSync(path));
    } catch {
      continue;
    }
    if (checked.get(landed) === key) continue;
    let file;
    try {
      file = readBoxFile(path);
    } catch {
      continue;
    }
    checked.set(landed, file.key);
    if (!file.bytes || !judgeSignal(file.bytes, expect).ok) continue;
    const reason = readReason(join(quarantine, reasonName));
    if (!reason || resolve(dirname(reason.originalPath)) !== resolve(inbox)) continue;
    // Only a signal goes back: an ack-named file holding a signal would be judged as an ack and quarantined again.
    if (!isSignalFileName(reason.file) || isAckFileName(reason.file)) continue;
    const name = linkFileNoClobber(path, inbox, reason.file, options);
    unlinkQuietly(join(quarantine, reasonName));
    unlinkQuietly(path);
    checked.delete(landed);
    restored.push(join(inbox, name));
  }
  if (restored.length && (options.durable ?? true)) fsyncDirectory(quarantine);
  return restored;
}

function readReason(path: string): QuarantineReason | undefined {
  try {
    const read = readFileBounded(path, { maxBytes: 64 * 1024, noFollow: true });
    if (!read.ok) return undefined;
    const json = parseJsonText(read.bytes.toString('utf8'));
    const parsed = json.ok ? quarantineReasonSchema.safeParse(json.value) : undefined;
    return parsed?.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
