import { z } from 'zod';

/**
 * The id index of an inbox (src/adapters/file/signals/inbox-id-index.ts): where the signals another tool
 * wrote are by id, so an ack by id reads one small shard instead of the inbox. It is fed's own cache in
 * `<workspace>/.fed/state/inbox-ids/`, a folder the team's agent can write too: every file is only a hint,
 * each name it gives is read and checked to carry the id.
 */
export const INBOX_ID_INDEX_DIR = 'inbox-ids';

/**
 * A shard (`<xxx>.json`, `xxx` three hex digits of a hash of the id, 1 024 shards): id (lowercase) → the
 * names of the inbox's files that carried it.
 */
export const INBOX_ID_SHARD_FILE = /^[0-9a-f]{3}\.json$/;
/**
 * A shard of the index as fed kept it before (`<xx>.json`, 256 shards): never read since — a lookup
 * finds no shard of its own, reads the inbox and rebuilds the index, which removes these.
 */
export const INBOX_ID_OLD_SHARD_FILE = /^[0-9a-f]{2}\.json$/;
/** One id's entry of a shard: the names of the inbox's files that carried it. */
export const inboxIdShardEntrySchema = z.array(z.string());
export const inboxIdShardSchema = z.record(z.string(), inboxIdShardEntrySchema);
export type InboxIdShard = z.infer<typeof inboxIdShardSchema>;

/**
 * `names`: every signal file name indexed, as one JSON array (a name may hold any character but `/`, a
 * newline included). Written after the shards, so a name listed here is in its shard.
 */
export const INBOX_ID_NAMES_FILE = 'names';
export const inboxIdNamesSchema = z.array(z.string());

/**
 * `covers.json` (padded with spaces to a fixed length, so it can be overwritten in place): the inbox folder the shards and names hold every signal file of, by the folder's identity
 * (`ino:size:mtime:ctime` in nanoseconds, fileIdentity): any name added to or removed from the folder
 * changes its mtime and ctime. While the folder's identity is still this one, a lookup trusts the index to
 * know every copy of an id and does not list the inbox. Removed before the shards or names are rewritten
 * and written after them, so a crash in between leaves no claim, never a wrong one.
 */
export const INBOX_ID_COVERS_FILE = 'covers.json';
export const inboxIdCoversSchema = z
  .object({
    inbox: z.string().regex(/^\d+:\d+:\d+:\d+$/),
  })
  .strict();
export type InboxIdCovers = z.infer<typeof inboxIdCoversSchema>;
