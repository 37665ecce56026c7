import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createFileExclusive } from '../../infra/fs/atomic-write.js';
import { acquireLock, LockTimeoutError, releaseLock, type LockHandle } from '../../infra/fs/lock.js';
import { toJsonText } from '../../core/json-text.js';
import { federationPaths } from '../../core/layout.js';
import type { Notified, NotifyChannel } from '../../core/schema/needs-you.js';
import type { Federation } from '../../engine/context.js';

/**
 * What was told, kept in `<root>/.fed/notify/`: `<item>.<channel>.json` once the item went out through the
 * channel (created exclusively, never rewritten: once there, never told again), and `<item>.lock` while a
 * process tells it (so two processes never tell it at once; a lock whose process is gone is taken over,
 * and the item told by the next pass).
 */

/** The item id as a file name: ids are made of team ids, ISO times and UUIDs, so only `:` needs replacing. */
function fileKey(id: string): string {
  return id.replace(/[^A-Za-z0-9.-]/g, '_');
}

export function isNotified(fed: Federation, id: string, channel: NotifyChannel): boolean {
  return existsSync(join(federationPaths(fed.root).notify, `${fileKey(id)}.${channel}.json`));
}

/** Record that the item went out through the channel; false when another process recorded it first. */
export function markNotified(
  fed: Federation,
  id: string,
  channel: NotifyChannel,
  options: { durable?: boolean } = {},
): boolean {
  const dir = federationPaths(fed.root).notify;
  fed.folderForWrite(dir, undefined, options);
  const notified: Notified = { id, channel, sentAt: fed.now().toISOString() };
  return createFileExclusive(join(dir, `${fileKey(id)}.${channel}.json`), toJsonText(notified), options);
}

/**
 * Claim the item for telling it now, or undefined when another live process is telling it (it finishes,
 * or a later pass takes over once that process is gone). Never waits for it.
 */
export async function claimItem(fed: Federation, id: string): Promise<LockHandle | undefined> {
  const dir = federationPaths(fed.root).notify;
  fed.folderForWrite(dir);
  try {
    return await acquireLock(join(dir, `${fileKey(id)}.lock`), { timeoutMs: 0 });
  } catch (error) {
    if (error instanceof LockTimeoutError) return undefined;
    throw error;
  }
}

export function releaseItem(handle: LockHandle): void {
  releaseLock(handle);
}
