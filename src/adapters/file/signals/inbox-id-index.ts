import { basename, join } from 'node:path';
import { FedError } from '../../../core/errors.js';
import { judgeSignal, type BoxExpectation } from '../../../core/schema/judge-signal.js';
import { parseJsonText } from '../../../core/json-text.js';
import { writeFileAtomic } from '../../../infra/fs/atomic-write.js';
import { ensureDirectory } from '../../../infra/fs/ensure-directory.js';
import { listDirectory } from '../../../infra/fs/list-directory.js';
import { readFileBounded } from '../../../infra/fs/read-file-bounded.js';
import { isSignalFileName } from './signal-file-name.js';
import { readValidFile } from './read-valid-file.js';

/** The index's folder in the workspace's state folder. */
export const INBOX_ID_INDEX_DIR = 'inbox-ids';
/**
 * The names already indexed: one JSON array of strings (a name may hold any character but `/`, a newline
 * included), replaced by rename like the shards, never appended — an agent can plant a link or a FIFO at
 * the path, and a rename replaces it where an append would write through it.
 */
const NAMES_FILE = 'names';
/** A shard's file name: the only `.json` files of the folder a rebuild empties. */
const SHARD_FILE = /^[0-9a-f]{2}\.json$/;
/** An index file is fed's own cache, never a signal: far bigger than this is not one fed wrote. */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

type Shard = Record<string, string[]>;

/**
 * Where an inbox's signals are, by id, for the signals no sent fact points to (written by another tool):
 * a folder beside the lifecycle state (`<workspace>/.fed/state/inbox-ids/`) with 256 shards by a hash of
 * the id (`<xx>.json`: id → the file names that carried it) and the list of names indexed (`names`).
 * The folder is the agent's to write: every file is replaced by rename (never appended, so nothing it
 * plants is written through) and read without following links, bounded and never blocking.
 * A lookup reads one small shard, not the inbox.
 *
 * It is only ever a hint, kept without fsync and best effort: a name it gives is read and checked to carry
 * the id; an id it does not know makes it list the inbox and read just the names it has not indexed yet.
 * A lost, stale or torn index (a crash, two writers at once, a name reused since) can only make a lookup
 * miss, and the caller then reads the whole inbox and rebuilds it; a write that fails (a read-only
 * workspace) is skipped.
 */
export class InboxIdIndex {
  /** How many signal files the last refresh or rebuild read (tests count them). */
  lastFilesRead = 0;

  constructor(
    private readonly dir: string,
    private readonly inbox: string,
    private readonly expect: BoxExpectation,
    /** Checks the index folder right before a write (the workspace checks: no link leads into it). */
    private readonly beforeWrite: (folder: string) => void,
  ) {}

  /** The names the index has for `id` (lowercase). */
  namesOf(id: string): string[] {
    const names: unknown = this.readShard(shardOf(id))[id];
    // A name from the index is a file of this inbox or nothing: never a path that could lead out of it.
    return Array.isArray(names)
      ? names.filter(
          (name): name is string => typeof name === 'string' && isSignalFileName(name) && basename(name) === name,
        )
      : [];
  }

  /**
   * List the inbox and index the signal files not indexed yet, reading only those. With no usable list of
   * names (missing, unreadable, oversized, a link, FIFO or folder planted there) it reads every signal file
   * and rebuilds the index, never adds to it; it then returns whether that rebuild was written: if so, an
   * id the index does not have is in none of them. Names no longer in the inbox are dropped.
   */
  refresh(): boolean {
    const known = this.readNames();
    const added: Array<{ id: string; file: string }> = [];
    const listed: string[] = [];
    this.lastFilesRead = 0;
    let listing: string[];
    try {
      listing = listDirectory(this.inbox);
    } catch {
      // The inbox cannot be listed: the caller's read of it reports why.
      return false;
    }
    for (const file of listing) {
      if (!isSignalFileName(file)) continue;
      listed.push(file);
      if (known?.has(file)) continue;
      this.lastFilesRead++;
      const message = readValidFile(join(this.inbox, file), (bytes) => judgeSignal(bytes, this.expect));
      // An invalid file is read again next time: it may be a signal still being written.
      if (message) added.push({ id: message.id.toLowerCase(), file });
    }
    // Every file was read, but an id is only found through the shards: a rebuild that could not be
    // written (a folder planted at a shard or at names, a read-only workspace) has the caller read the inbox.
    if (known === undefined) return this.store(added, true);
    const kept = listed.filter((file) => known.has(file));
    if (added.length > 0 || kept.length < known.size) this.store(added, false, kept);
    return false;
  }

  /** Replace the index with these signals: what a read of the whole inbox found. */
  rebuild(signals: ReadonlyArray<{ id: string; file: string }>): void {
    this.lastFilesRead = signals.length;
    this.store(
      signals.map(({ id, file }) => ({ id: id.toLowerCase(), file })),
      true,
    );
  }

  /**
   * Shards first, then the names: a crash in between leaves names read again, never names skipped
   * unindexed. Returns whether all of it was written. `kept`: the names already indexed that are still
   * in the inbox (without `replace`).
   * Every write is a rename of a new file into place, so a link, FIFO or file an agent planted at a path
   * of the folder is replaced, never written through; anything refused or failing just skips the cache.
   */
  private store(
    entries: ReadonlyArray<{ id: string; file: string }>,
    replace: boolean,
    kept: readonly string[] = [],
  ): boolean {
    try {
      const shards = new Map<string, Shard>();
      for (const { id, file } of entries) {
        const key = shardOf(id);
        let shard = shards.get(key);
        if (!shard) shards.set(key, (shard = replace ? {} : this.readShard(key)));
        const files = (shard[id] ??= []);
        if (!files.includes(file)) files.push(file);
      }
      const names = new Set(kept);
      for (const { file } of entries) names.add(file);
      this.beforeWrite(this.dir);
      ensureDirectory(this.dir, { durable: false });
      if (replace)
        for (const stale of listDirectory(this.dir))
          if (SHARD_FILE.test(stale) && !shards.has(stale.slice(0, -5))) this.write(stale, '{}');
      for (const [key, shard] of shards) this.write(`${key}.json`, JSON.stringify(shard));
      this.write(NAMES_FILE, JSON.stringify([...names]));
      return true;
    } catch (error) {
      // Only a cache: a workspace fed cannot write to (or whose folder is refused) keeps finding by reading.
      if (!(error instanceof FedError) && !(error as NodeJS.ErrnoException).code) throw error;
      return false;
    }
  }

  private write(name: string, text: string): void {
    writeFileAtomic(join(this.dir, name), text, { durable: false });
  }

  private readShard(key: string): Shard {
    const text = this.readText(`${key}.json`);
    const parsed = text === undefined ? undefined : parseJsonText(text);
    return parsed?.ok && isShard(parsed.value) ? parsed.value : {};
  }

  /** The names indexed, or undefined when there is no usable list (missing, refused, oversized, not JSON). */
  private readNames(): Set<string> | undefined {
    const text = this.readText(NAMES_FILE);
    const parsed = text === undefined ? undefined : parseJsonText(text);
    if (!parsed?.ok || !Array.isArray(parsed.value)) return undefined;
    return new Set(parsed.value.filter((name): name is string => typeof name === 'string'));
  }

  /** Never follows a link, never blocks on a FIFO, refuses a folder or an oversized file: undefined then. */
  private readText(name: string): string | undefined {
    try {
      const read = readFileBounded(join(this.dir, name), { maxBytes: MAX_INDEX_BYTES, noFollow: true });
      return read.ok ? read.bytes.toString('utf8') : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Shards per index: an inbox of 100 000 signals keeps about 400 ids in each. */
const SHARDS = 256;

/**
 * The shard of an id: a hash of the whole id (FNV-1a), not its first digits — ids another tool makes
 * may share a prefix (sequential, or a fixed one), and would all land in one shard.
 */
function shardOf(id: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return ((hash >>> 0) % SHARDS).toString(16).padStart(2, '0');
}

function isShard(value: unknown): value is Shard {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
