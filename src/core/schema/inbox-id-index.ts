import { z } from 'zod';

/**
 * The id index of an inbox (src/adapters/file/signals/inbox-id-index.ts): where the signals another tool
 * wrote are by id, so an ack by id reads one small shard instead of the inbox. It is fed's own cache in
 * `<workspace>/.fed/state/inbox-ids/`, a folder the team's agent can write too: every file is only a hint,
 * each name it gives is read and checked to carry the id.
 */
export const INBOX_ID_INDEX_DIR = 'inbox-ids';

/**
 * Which writing of the index a file belongs to: 16 hex digits, new each time the pack is written, and
 * written into the pack, the names and the claim alike. Two processes may update the index at once, each
 * from the pack it read: the pack of one and the names and claim of the other may end up side by side, and
 * the pack would then lack what the names say is indexed. The index is trusted only where the files agree
 * on the generation (a lookup: the claim and the pack; an update: the names and the pack).
 */
export const inboxIdGenerationSchema = z.string().regex(/^[0-9a-f]{16}$/);

/**
 * `ids.pack`: the index's 1 024 shards (by a hash of the id) in one file, so a rebuild creates one file,
 * not a thousand (a file creation costs ~0.2 ms on an ext4 disk: more than half of a first lookup in
 * 100 000 signals was creating shard files). A header, then each shard's JSON text:
 *
 * - bytes 0–7: `INBOX_ID_PACK_MAGIC`; bytes 8–15: the generation (its 8 bytes);
 * - then for shard 0 to 1 023, two unsigned 32-bit little-endian integers: where its text starts in the
 *   file and how many bytes it has (0: the shard holds no id);
 * - the texts, each a JSON array (inboxIdShardSchema).
 *
 * A lookup reads the header and its shard's bytes; only an update of the index reads the whole file.
 */
export const INBOX_ID_PACK_FILE = 'ids.pack';
export const INBOX_ID_PACK_MAGIC = 'fedids1\n';
export const INBOX_ID_SHARDS = 1024;
const GENERATION_AT = INBOX_ID_PACK_MAGIC.length;
const RANGES_AT = GENERATION_AT + 8;
export const INBOX_ID_PACK_HEADER_BYTES = RANGES_AT + INBOX_ID_SHARDS * 8;

/**
 * A shard: its ids (lowercase) each followed by the name of an inbox file that carried it —
 * `[id, name, id, name, …]`, an id twice when two files carry it. Pairs in a flat array of strings, not an
 * object of ids: a rebuild makes and writes them three times faster (no keyed object per shard to grow),
 * and a lookup parses one faster and only looks at the pairs of its id.
 */
export const inboxIdShardSchema = z
  .array(z.string())
  .refine((pairs) => pairs.length % 2 === 0, { message: 'ids and names come in pairs' });
export type InboxIdShard = z.infer<typeof inboxIdShardSchema>;

/** The pack of these shard texts (one per shard, '' for an empty one), as `ids.pack` holds them. */
export function encodeInboxIdPack(generation: string, texts: ReadonlyArray<string | Buffer>): Buffer {
  if (texts.length !== INBOX_ID_SHARDS)
    throw new RangeError(`a pack has ${INBOX_ID_SHARDS} shards, not ${texts.length}`);
  const sizes = texts.map((text) => (typeof text === 'string' ? Buffer.byteLength(text) : text.length));
  const pack = Buffer.allocUnsafe(INBOX_ID_PACK_HEADER_BYTES + sizes.reduce((sum, size) => sum + size, 0));
  pack.write(INBOX_ID_PACK_MAGIC, 0, 'latin1');
  pack.write(inboxIdGenerationSchema.parse(generation), GENERATION_AT, 'hex');
  let start = INBOX_ID_PACK_HEADER_BYTES;
  texts.forEach((text, shard) => {
    pack.writeUInt32LE(start, RANGES_AT + shard * 8);
    pack.writeUInt32LE(sizes[shard]!, RANGES_AT + shard * 8 + 4);
    start += typeof text === 'string' ? pack.write(text, start) : text.copy(pack, start);
  });
  return pack;
}

/** A pack's header, read: its generation and where each shard's text is. */
export interface InboxIdPackHeader {
  generation: string;
  /** Where shard `shard`'s text is, or undefined when the header places it outside the file. */
  range(shard: number): { start: number; length: number } | undefined;
  /**
   * Whether every shard's text lies in the file: what an update, which copies them all, needs. A lookup
   * checks only its own shard's (a loop over the whole header costs a one-shot process ~0.2 ms).
   */
  sound(): boolean;
}

/**
 * The header of a pack of `size` bytes (its first INBOX_ID_PACK_HEADER_BYTES bytes, or more), or undefined
 * when it is not a pack's: a torn or planted pack is never read past its end.
 */
export function readInboxIdPackHeader(header: Buffer, size: number): InboxIdPackHeader | undefined {
  if (header.length < INBOX_ID_PACK_HEADER_BYTES) return undefined;
  if (header.toString('latin1', 0, GENERATION_AT) !== INBOX_ID_PACK_MAGIC) return undefined;
  const range = (shard: number) => {
    const start = header.readUInt32LE(RANGES_AT + shard * 8);
    const length = header.readUInt32LE(RANGES_AT + shard * 8 + 4);
    return start >= INBOX_ID_PACK_HEADER_BYTES && start + length <= size ? { start, length } : undefined;
  };
  return {
    generation: header.toString('hex', GENERATION_AT, RANGES_AT),
    range,
    sound: () => {
      for (let shard = 0; shard < INBOX_ID_SHARDS; shard++) if (range(shard) === undefined) return false;
      return true;
    },
  };
}

/**
 * Shards of the index as fed kept them before, one file each (`<xxx>.json`, 1 024 of them, and before
 * that `<xx>.json`, 256): never read since — a lookup finds no pack, reads the inbox and rebuilds the
 * index, which removes these.
 */
export const INBOX_ID_OLD_SHARD_FILE = /^[0-9a-f]{2,3}\.json$/;

/**
 * `names`: every signal file name indexed (a name may hold any character but `/`, a newline included),
 * with the generation of the pack written just before it: while the pack is still of that generation, a
 * name listed here is in its shard.
 */
export const INBOX_ID_NAMES_FILE = 'names';
export const inboxIdNamesSchema = z.strictObject({
  generation: inboxIdGenerationSchema,
  names: z.array(z.string()),
});
export type InboxIdNames = z.infer<typeof inboxIdNamesSchema>;

/**
 * `covers.json` (padded with spaces to a fixed length, so it can be overwritten in place): the inbox folder
 * the pack of `generation` holds every signal file of, by the folder's identity (`ino:size:mtime:ctime` in
 * nanoseconds, fileIdentity): any name added to or removed from the folder changes its mtime and ctime.
 * While the folder's identity is still this one and the pack still of that generation, a lookup trusts the
 * index to know every copy of an id and does not list the inbox. Removed before the pack or names are
 * rewritten and written after them, so a crash in between leaves no claim, never a wrong one.
 */
export const INBOX_ID_COVERS_FILE = 'covers.json';
export const inboxIdCoversSchema = z.strictObject({
  inbox: z.string().regex(/^\d+:\d+:\d+:\d+$/),
  generation: inboxIdGenerationSchema,
});
export type InboxIdCovers = z.infer<typeof inboxIdCoversSchema>;
