import { closeSync, constants, fstatSync, openSync, statSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { joinPath } from '../../../core/layout.js';
import type { z } from 'zod';
import { FedError } from '../../../core/errors.js';
import { judgeSignal, type BoxExpectation } from '../../../core/schema/judge-signal.js';
import {
  encodeInboxIdPack,
  INBOX_ID_COVERS_FILE,
  INBOX_ID_NAMES_FILE,
  INBOX_ID_OLD_SHARD_FILE,
  INBOX_ID_PACK_FILE,
  INBOX_ID_PACK_HEADER_BYTES,
  INBOX_ID_SHARDS,
  inboxIdCoversSchema,
  type InboxIdNames,
  inboxIdNamesSchema,
  type InboxIdPackHeader,
  inboxIdShardSchema,
  type InboxIdShard,
  readInboxIdPackHeader,
} from '../../../core/schema/inbox-id-index.js';
import { parseJsonText } from '../../../core/json-text.js';
import { randomBytes } from '../../../infra/crypto/random.js';
import { unlinkQuietly, writeFileAtomic } from '../../../infra/fs/atomic-write.js';
import { ensureDirectory } from '../../../infra/fs/ensure-directory.js';
import { listDirectory } from '../../../infra/fs/list-directory.js';
import { fileIdentity, readFileBounded, readFileParts } from '../../../infra/fs/read-file-bounded.js';
import { SETTLE_MS } from '../../../core/schema/signal.js';
import { judgeBoxFile, readBoxFile, type ReadFile } from './parse-signal-file.js';
import { mayStillBeWritten } from './read-signals.js';
import { isSignalFileName } from './signal-file-name.js';

/** An index file is fed's own cache, never a signal: far bigger than this is not one fed wrote. */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;
/**
 * The pack holds each signal's id beside its name, about twice the list of names: with twice the bound,
 * both reach theirs at about the same inbox (~1.4 million signals), past which every lookup reads the inbox.
 */
const MAX_PACK_BYTES = 2 * MAX_INDEX_BYTES;

/**
 * Where an inbox's signals are, by id, for the signals no sent fact points to (written by another tool):
 * a folder beside the lifecycle state (`<workspace>/.fed/state/inbox-ids/`, formats in
 * src/core/schema/inbox-id-index.ts) with a pack of 1 024 shards by a hash of the id (each id beside the
 * name of a file that carried it), the list of names indexed, and the inbox folder's identity the two cover.
 * The folder is the agent's to write: every file is replaced by rename (never appended, so nothing it
 * plants is written through) and read without following links, bounded and never blocking.
 *
 * A lookup while the inbox folder is still the one covered reads the small claim and one shard of the
 * pack, not the inbox: no name was added or removed since, so the shard knows every copy of the id.
 * Otherwise the inbox is listed and only the names not indexed yet are read. fed's own acks change the
 * folder too, so an ack by id that found the index covering the inbox moves the claim past its own ack
 * file (coverOwnWrites) — without that, every later ack would list 100 000 names.
 *
 * It is only ever a hint, kept without fsync and best effort: a name it gives is read and checked to carry
 * the id. A lost, stale or torn index (a crash, two writers at once) can only make a lookup miss, and the
 * caller then reads the whole inbox and rebuilds it; a write that fails (a read-only workspace) is
 * skipped. The claim is removed before the pack or names are rewritten and written after, so a crash in
 * between leaves the inbox listed next time, never a partial index trusted; and each writing has a
 * generation of its own, in the pack, the names and the claim, so the files of two writers at once are
 * never taken for one index (inboxIdGenerationSchema). A name indexed is not read again while it stays in
 * the inbox: a tool writes each signal file once (docs/delivery.md), and a file removed and another made
 * under its name between two lookups keeps the first one's id in the index until a lookup misses and
 * rebuilds it.
 */
export class InboxIdIndex {
  /** How many signal files the last refresh or rebuild read (tests count them). */
  lastFilesRead = 0;
  /** The inbox folder's identity this process found or made the index cover (what coverOwnWrites extends). */
  private covered: string | undefined;
  /**
   * The generation of the pack this process trusts: the one the claim it found names, the one whose names
   * it updated from, or the one it wrote. A pack of any other is another writer's: not read.
   */
  private trusted: string | undefined;

  constructor(
    private readonly dir: string,
    private readonly inbox: string,
    private readonly expect: BoxExpectation,
    /** Checks the index folder right before a write (the workspace checks: no link leads into it). */
    private readonly beforeWrite: (folder: string) => void,
  ) {}

  /** Whether the index holds every signal file of the inbox as it is now (its claim names the folder as it is). */
  covers(): boolean {
    const claim = this.readJson(INBOX_ID_COVERS_FILE, inboxIdCoversSchema);
    const now = this.inboxIdentity();
    const holds = claim !== undefined && claim.inbox === now;
    this.covered = holds ? now : undefined;
    this.trusted = holds ? claim.generation : undefined;
    return holds;
  }

  /**
   * The names the index has for `id` (lowercase), or undefined when it cannot say: no pack of the
   * generation this process trusts (covers or refresh decides which), or a shard or a pair of the id that
   * is not what fed writes. Only that id's pairs of its shard are looked at: a lookup uses one of the
   * shard's ids, and checking them all cost as much again as parsing the shard.
   */
  namesOf(id: string): string[] | undefined {
    const shard = this.readShardValue(shardOf(id));
    if (!Array.isArray(shard)) return undefined;
    const names = new Set<string>();
    for (let at = 0; at < shard.length; at += 2) {
      if (shard[at] !== id) continue;
      const name: unknown = shard[at + 1];
      // A name from the index is a file of this inbox or nothing: never a path that could lead out of it.
      if (typeof name !== 'string' || !isSignalFileName(name) || basename(name) !== name) return undefined;
      names.add(name);
    }
    return [...names];
  }

  /**
   * List the inbox and index the signal files not indexed yet, reading only those. With no usable list of
   * names or pack of the same generation (missing, unreadable, oversized, another writer's, a link, FIFO or
   * folder planted there) it reads every signal file and rebuilds the index, never adds to it; it then
   * returns whether that rebuild was written: if so, an id the index does not have is in none of them.
   * Names no longer in the inbox are dropped. The index then covers the inbox as it was before the listing
   * (a name added meanwhile changes the folder again).
   */
  refresh(): boolean {
    this.trusted = undefined;
    const index = this.readKnown();
    const known = index && new Set(index.names);
    const added: Array<{ id: string; file: string }> = [];
    const listed: string[] = [];
    this.lastFilesRead = 0;
    let listing: string[];
    let before: string;
    try {
      before = this.inboxIdentity();
      listing = listDirectory(this.inbox);
    } catch {
      // The inbox cannot be listed: the caller's read of it reports why.
      return false;
    }
    // An invalid file is not indexed, so it is read again next time. One that may still be written (empty
    // or cut-off, changed a moment ago) keeps the inbox unclaimed: its writer finishes it in place, which
    // changes no name of the folder, and a claim would keep the next lookup from reading it.
    let unsettled = false;
    for (const file of listing) {
      if (!isSignalFileName(file)) continue;
      listed.push(file);
      if (known?.has(file)) continue;
      this.lastFilesRead++;
      let read: ReadFile;
      try {
        read = readBoxFile(joinPath(this.inbox, file));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      const judged = judgeBoxFile(read, (bytes) => judgeSignal(bytes, this.expect));
      if (judged.ok) added.push({ id: judged.value.id.toLowerCase(), file });
      else unsettled ||= mayStillBeWritten(judged, read.mtimeMs, SETTLE_MS);
    }
    // Every file was read, but an id is only found through the pack: a rebuild that could not be
    // written (a folder planted at the pack or at names, a read-only workspace) has the caller read the inbox.
    if (index === undefined || known === undefined) return this.store(added) && !unsettled && this.claim(before);
    const kept = listed.filter((file) => known.has(file));
    const changed = added.length > 0 || kept.length < known.size;
    if (!changed) this.trusted = index.generation;
    if ((!changed || this.store(added, { generation: index.generation, kept })) && !unsettled) this.claim(before);
    return false;
  }

  /** Replace the index with these signals: what a read of the whole inbox found (claiming nothing). */
  rebuild(signals: ReadonlyArray<{ id: string; file: string }>): void {
    this.lastFilesRead = signals.length;
    this.store(signals.map(({ id, file }) => ({ id: id.toLowerCase(), file })));
  }

  /** Whether the inbox is still the one this process found the index to cover: checked right before fed writes acks into it. */
  stillCovers(): boolean {
    return this.covered !== undefined && this.inboxIdentity() === this.covered;
  }

  /**
   * After fed wrote only ack files into an inbox the index covered (stillCovers right before): the claim
   * moves to the folder as it is now, unless someone rewrote the claim meanwhile. An ack is no signal, so
   * the index still holds every signal file. A name another tool adds between that check and this look
   * (while fed writes the batch's acks, each flushed unless the write is not durable) is taken as covered: a new id is still found (an id the index does not
   * have lists the inbox), a second copy of an indexed id waits for the next change of the inbox, or for
   * an ack by id that finds every copy the index names acknowledged (that lists it too).
   */
  coverOwnWrites(): void {
    const was = this.covered;
    if (was === undefined) return;
    this.covered = undefined;
    try {
      const now = this.inboxIdentity();
      const claim = this.readJson(INBOX_ID_COVERS_FILE, inboxIdCoversSchema);
      if (claim?.inbox !== was || claim.generation !== this.trusted) return;
      // In place: a rename per ack costs more than the ack itself on a busy disk.
      if (rewriteInPlace(join(this.dir, INBOX_ID_COVERS_FILE), claimText(now, claim.generation))) this.covered = now;
      else this.claim(now);
    } catch {
      // The inbox is gone or unreadable: no claim, the next lookup lists it.
    }
  }

  /** The inbox folder's identity (fileIdentity): changes with every name added or removed. */
  private inboxIdentity(): string {
    return fileIdentity(statSync(this.inbox, { bigint: true }));
  }

  /** Claim the pack this process trusts covers the inbox with this identity; whether it was written. */
  private claim(inbox: string): boolean {
    if (this.trusted === undefined) return false;
    try {
      this.beforeWrite(this.dir);
      this.write(INBOX_ID_COVERS_FILE, claimText(inbox, this.trusted));
      this.covered = inbox;
      return true;
    } catch (error) {
      return skipped(error);
    }
  }

  /**
   * The claim first, then the pack, then the names, all of a new generation: a crash in between leaves no
   * claim, and names read again, never names skipped unindexed. Returns whether all of it was written (the
   * new generation is then the one this process trusts). Without `update` the pack holds `entries` alone
   * (what a read of every signal file found); with it, `entries` are added to the pack of that generation
   * as it is — the shards they touch parsed and rewritten, the others' bytes copied — and `kept` are the
   * names already indexed that are still in the inbox. A pack no longer of that generation (another writer
   * came between) or with a shard to touch that is not what fed writes is not added to: nothing is
   * written, no claim made, and the lookup reads the inbox.
   * Every write is a rename of a new file into place, so a link, FIFO or file an agent planted at a path
   * of the folder is replaced, never written through; anything refused or failing just skips the cache.
   */
  private store(
    entries: ReadonlyArray<{ id: string; file: string }>,
    update?: { generation: string; kept: readonly string[] },
  ): boolean {
    this.covered = undefined;
    this.trusted = undefined;
    try {
      const old = update && this.readPack(update.generation);
      if (update && old === undefined) return false;
      // No name twice: `kept` are names indexed before, `entries` names read now that were not, each once.
      const names = [...(update?.kept ?? [])];
      for (const { file } of entries) names.push(file);
      const touched = new Map<number, InboxIdShard>();
      // Pairs of names gone from the inbox stay in the shards an update does not touch: once they make the
      // pack twice what its names need, every shard is rewritten with only the pairs of names still there.
      if (old && old.bytes.length - INBOX_ID_PACK_HEADER_BYTES > 2 * pairBytesNeeded(names)) {
        const still = new Set(names);
        for (let key = 0; key < INBOX_ID_SHARDS; key++) {
          const shard = shardIn(old, key);
          if (shard === undefined) return false;
          touched.set(key, livePairs(shard, still));
        }
      }
      for (const { id, file } of entries) {
        const key = shardOf(id);
        let shard = touched.get(key);
        if (!shard) {
          shard = old ? shardIn(old, key) : [];
          if (shard === undefined) return false;
          touched.set(key, shard);
        }
        if (!old || !hasPair(shard, id, file)) shard.push(id, file);
      }
      const texts = Array.from({ length: INBOX_ID_SHARDS }, (_, key) => {
        const shard = touched.get(key);
        return shard ? JSON.stringify(shard) : old ? shardBytes(old, key) : '';
      });
      const generation = randomBytes(8).toString('hex');
      this.beforeWrite(this.dir);
      ensureDirectory(this.dir, { durable: false });
      unlinkQuietly(join(this.dir, INBOX_ID_COVERS_FILE));
      if (!update)
        for (const stale of listDirectory(this.dir))
          if (INBOX_ID_OLD_SHARD_FILE.test(stale)) unlinkQuietly(join(this.dir, stale));
      this.write(INBOX_ID_PACK_FILE, encodeInboxIdPack(generation, texts));
      this.write(INBOX_ID_NAMES_FILE, JSON.stringify({ generation, names } satisfies InboxIdNames));
      this.trusted = generation;
      return true;
    } catch (error) {
      return skipped(error);
    }
  }

  private write(name: string, text: string | Buffer): void {
    writeFileAtomic(join(this.dir, name), text, { durable: false });
  }

  /** The whole pack when it is one of `generation` (what an update of a few shards starts from), or undefined. */
  private readPack(generation: string): WholePack | undefined {
    const bytes = this.readBytes(INBOX_ID_PACK_FILE, MAX_PACK_BYTES);
    if (bytes === undefined) return undefined;
    const header = readInboxIdPackHeader(bytes, bytes.length);
    return header?.generation === generation && header.sound() ? { bytes, header } : undefined;
  }

  /**
   * The names indexed and the generation of the pack they go with, when the pack is there, of that
   * generation (its header read alone) — else undefined: the index is rebuilt, not added to.
   */
  private readKnown(): InboxIdNames | undefined {
    const header = this.readPackParts((read, size) => {
      const found = headerOf(read, size);
      return found?.sound() ? found : undefined;
    });
    const names = header && this.readJson(INBOX_ID_NAMES_FILE, inboxIdNamesSchema);
    return names?.generation === header?.generation ? names : undefined;
  }

  /**
   * A shard's text in the pack as JSON, not validated (only its header and that shard's bytes are read), or
   * undefined — so too when the pack is not of the generation this process trusts.
   */
  private readShardValue(key: number): unknown {
    const trusted = this.trusted;
    if (trusted === undefined) return undefined;
    const text = this.readPackParts((read, size) => {
      const header = headerOf(read, size);
      const range = header?.generation === trusted ? header.range(key) : undefined;
      return range && read(range.start, range.length)?.toString('utf8');
    });
    const parsed = text === undefined ? undefined : parseJsonText(text);
    return parsed?.ok ? parsed.value : undefined;
  }

  /** readFileParts of the pack, bounded and never through a link; undefined when it is not there. */
  private readPackParts<T>(pick: Parameters<typeof readFileParts<T>>[2]): T | undefined {
    try {
      return readFileParts(join(this.dir, INBOX_ID_PACK_FILE), { maxBytes: MAX_PACK_BYTES, noFollow: true }, pick);
    } catch {
      return undefined;
    }
  }

  /**
   * A file of the index, valid, or undefined: never follows a link, never blocks on a FIFO, refuses a
   * folder, an oversized file or anything its schema does not accept.
   */
  private readJson<T>(name: string, schema: z.ZodType<T>): T | undefined {
    const bytes = this.readBytes(name);
    return bytes && validJson(bytes, schema);
  }

  /** A file of the index, whole (bounded, never through a link), or undefined. */
  private readBytes(name: string, maxBytes = MAX_INDEX_BYTES): Buffer | undefined {
    try {
      const read = readFileBounded(join(this.dir, name), { maxBytes, noFollow: true });
      return read.ok ? read.bytes : undefined;
    } catch {
      return undefined;
    }
  }
}

/**
 * The claim's text, padded to a fixed length (JSON allows the trailing spaces): one write of that length
 * over an old claim replaces all of it, and a torn one names no folder identity (it is the old, the new
 * or invalid), so it is never trusted wrongly.
 */
function claimText(inbox: string, generation: string): Buffer {
  const text = Buffer.alloc(CLAIM_BYTES, ' ');
  text.write(JSON.stringify({ inbox, generation }));
  return text;
}

/** Long enough for four 20-digit numbers and the generation. */
const CLAIM_BYTES = 160;

/**
 * Overwrite the claim in place when it is a file fed wrote: a regular file of exactly the claim's length
 * with no other name (a hard link an agent planted to a file outside would be written through). A link,
 * FIFO or anything else is never opened for writing (`O_NOFOLLOW`, `O_NONBLOCK`); false then, and the
 * caller replaces it by rename.
 */
function rewriteInPlace(path: string, text: Buffer): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.nlink !== 1 || stat.size !== text.length) return false;
    return writeSync(fd, text, 0, text.length, 0) === text.length;
  } finally {
    closeSync(fd);
  }
}

/** Only a cache: a workspace fed cannot write to (or whose folder is refused) keeps finding by reading. */
function skipped(error: unknown): false {
  if (!(error instanceof FedError) && !(error as NodeJS.ErrnoException).code) throw error;
  return false;
}

/** A pack read whole, with its header. */
interface WholePack {
  bytes: Buffer;
  header: InboxIdPackHeader;
}

/** The header of the pack being read in parts (readFileParts), or undefined when it is not a pack's. */
function headerOf(read: (start: number, length: number) => Buffer | undefined, size: number) {
  const bytes = read(0, INBOX_ID_PACK_HEADER_BYTES);
  return bytes && readInboxIdPackHeader(bytes, size);
}

/** Bytes as JSON valid to `schema`, or undefined. */
function validJson<T>(bytes: Buffer, schema: z.ZodType<T>): T | undefined {
  const parsed = parseJsonText(bytes.toString('utf8'));
  const valid = parsed.ok ? schema.safeParse(parsed.value) : undefined;
  return valid?.success ? valid.data : undefined;
}

/** A shard's bytes in a pack (its header read already and sound: every range in the file). */
function shardBytes(pack: WholePack, key: number): Buffer {
  const { start, length } = pack.header.range(key)!;
  return pack.bytes.subarray(start, start + length);
}

/** A shard of a pack, valid, or undefined when it is not what fed writes (torn or planted). */
function shardIn(pack: WholePack, key: number): InboxIdShard | undefined {
  const bytes = shardBytes(pack, key);
  return bytes.length === 0 ? [] : validJson(bytes, inboxIdShardSchema);
}

/** About the bytes the shards of these names take: each name beside an id (a UUID's 36 characters), quoted and separated. */
function pairBytesNeeded(names: readonly string[]): number {
  let bytes = 0;
  for (const name of names) bytes += name.length + 42;
  return bytes;
}

/** The pairs of a shard whose names are still in the inbox. */
function livePairs(shard: InboxIdShard, names: ReadonlySet<string>): InboxIdShard {
  const live: InboxIdShard = [];
  for (let at = 0; at < shard.length; at += 2) if (names.has(shard[at + 1]!)) live.push(shard[at]!, shard[at + 1]!);
  return live;
}

/** Whether the shard has this id beside this name already. */
function hasPair(shard: InboxIdShard, id: string, file: string): boolean {
  for (let at = 0; at < shard.length; at += 2) if (shard[at] === id && shard[at + 1] === file) return true;
  return false;
}

/**
 * The shard of an id: a hash of the whole id (FNV-1a), not its first digits — ids another tool makes
 * may share a prefix (sequential, or a fixed one), and would all land in one shard. With 1 024 shards an
 * inbox of 100 000 signals keeps about 100 ids in each: a lookup parses one shard, and V8 parses an
 * object of a few hundred keys several times slower per key than one of a hundred (it no longer keeps its
 * keys in a fixed layout) — with 256 that parse was a third of the gap between a later ack in 100 000
 * signals and one in 10.
 */
function shardOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % INBOX_ID_SHARDS;
}
