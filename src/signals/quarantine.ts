import { basename, dirname, join, resolve } from 'node:path';
import { RefusedError } from '../errors.js';
import { fsyncDirectory, linkFileNoClobber, publishFileNoClobber, unlinkQuietly, type WriteOptions } from '../fs/atomic-write.js';
import { ensureDirectory } from '../fs/ensure-directory.js';
import { toJsonText } from '../fs/json-text.js';
import { workspacePaths } from '../layout.js';
import type { QuarantineReason } from '../schema/signal.js';

export interface QuarantineOptions extends WriteOptions {
  now?: () => Date;
}

export interface QuarantineResult {
  /** Where the file is now. */
  path: string;
  /** The `<name>.reason.json` beside it. */
  reasonPath: string;
}

/** `<workspace>/.fed/signals/quarantine/`: invalid files taken out of that workspace's boxes. */
export function quarantineDirectory(workspace: string): string {
  return join(workspacePaths(workspace).signals, 'quarantine');
}

/**
 * Move an invalid file out of a signal box so it stops being reported on every poll, without ever
 * deleting it (invariant 4): it is hard-linked into the quarantine folder under a free name, a
 * `<name>.reason.json` saying why is written beside it, and only then is the box entry removed. A crash
 * in between leaves the file in both places, never in neither. `file` is an InvalidSignalFile of a reader.
 */
export function quarantineSignalFile(file: { path: string; reason: string }, options: QuarantineOptions = {}): QuarantineResult {
  const path = resolve(file.path);
  const box = dirname(path);
  const workspace = dirname(dirname(dirname(box)));
  const paths = workspacePaths(workspace);
  if (box !== paths.inbox && box !== paths.outbox) {
    throw new RefusedError('NOT_A_SIGNAL_BOX', `${path} is not in a signal inbox or outbox (<workspace>/.fed/signals/{inbox,outbox}); fed quarantines only files of signal boxes`);
  }
  const writeOptions: WriteOptions = { durable: options.durable ?? true };
  const quarantine = quarantineDirectory(workspace);
  ensureDirectory(quarantine, writeOptions);

  let landed: string;
  try {
    landed = linkFileNoClobber(path, quarantine, basename(path), writeOptions);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new RefusedError('SIGNAL_FILE_MISSING', `${path} no longer exists (another process moved it); nothing to quarantine`);
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
