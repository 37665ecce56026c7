import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fsyncDirectory, type WriteOptions } from './atomic-write.js';

/**
 * `mkdir -p` that survives a crash: every directory that gained a new entry (the parent of the first
 * created directory and each created directory above `dir`) is fsynced, so a file later published and
 * fsynced inside `dir` cannot vanish together with a directory entry that was never made durable.
 */
export function ensureDirectory(dir: string, options: WriteOptions = {}): void {
  const firstCreated = mkdirSync(dir, { recursive: true });
  if (firstCreated === undefined || !(options.durable ?? true)) return;
  for (let parent = dirname(dir); parent.length >= firstCreated.length; parent = dirname(parent)) fsyncDirectory(parent);
  fsyncDirectory(dirname(firstCreated));
}
