import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { workspacePaths } from './file-layout.js';
import { FedError, RefusedError } from '../../core/errors.js';
import { fsyncDirectory } from '../../infra/fs/atomic-write.js';
import { ensureDirectory } from '../../infra/fs/ensure-directory.js';
import type {
  AcknowledgeBatch,
  AcknowledgeOptions,
  BoxLookup,
  FindHint,
  InboxOptions,
  InvalidSignalFile,
  PendingBatchOptions,
  QuarantineOptions,
  QuarantineResult,
  ReadBoxOptions,
  SignalEntry,
  SignalInbox,
  SignalOutbox,
  SignalReadResult,
  SignalSubscription,
  TransportWriteOptions,
  WatchOptions,
} from '../../ports/signal-transport.js';
import { writeAck } from './signals/ack-signal.js';
import type { BoxExpectation } from '../../core/schema/judge-signal.js';
import { quarantineDirectory, quarantineSignalFile, restoreSettledQuarantine } from './signals/quarantine.js';
import { SignalBoxReader } from './signals/read-signals.js';
import { SETTLE_MS } from '../../core/schema/signal.js';
import type { SignalWorkspace } from './signals/resolve-workspace.js';
import { findInNameRun } from './signals/name-run.js';
import { readSignalEntry } from './signals/read-signal-entry.js';
import { ackFileName, isSignalFileName, signalFileName } from './signals/signal-file-name.js';
import { SharedDirectoryWatchers } from '../../infra/watch/shared-directory-watchers.js';
import { watchFolder } from '../../infra/watch/watch-folder.js';
import { watchSignalBox } from './signals/watch-signals.js';
import { pendingFileBatches } from './pending-file-batches.js';
import { InboxIdIndex } from './signals/inbox-id-index.js';
import { INBOX_ID_INDEX_DIR } from '../../core/schema/inbox-id-index.js';

/** How many names of a run of same-second, same-subject signals a hinted `find` tries before it reads the whole inbox. */
const HINTED_NAMES = 16;

/**
 * A party's inbox in file-signal-v1: `<workspace>/.fed/signals/inbox/`, signals as `<name>.json` files,
 * acknowledgments as `<name>.json.ack` beside them (docs/design/spec.md §4.2–4.3). It keeps one incremental reader, so
 * re-reading costs only what changed since.
 */
export class FileSignalInbox implements SignalInbox {
  readonly party: string;
  readonly location: string;
  private readonly workspace: string;
  private readonly expect: BoxExpectation;
  private readonly reader: SignalBoxReader;
  /** Quarantined files already found invalid, by stat (see restoreSettledQuarantine). */
  private readonly quarantineChecked = new Map<string, string>();
  private readonly settleMs: number;
  /** Names of ack files known valid and acknowledging (judged, or written here), for pendingBatches. */
  private readonly validAcks = new Set<string>();
  /** Where the inbox's signals are by id, for finding one no sent fact points to. */
  readonly idIndex: InboxIdIndex;

  /**
   * `beforeWrite`: checks a folder of the party's workspace right before fed writes into it (the backend's
   * workspace checks): the quarantine folder is refused, not written, when a link leads into it.
   */
  constructor(
    workspace: SignalWorkspace,
    options: InboxOptions = {},
    private readonly beforeWrite: (folder: string) => void,
  ) {
    this.settleMs = options.settleMs ?? SETTLE_MS;
    this.party = workspace.id;
    this.location = workspace.inbox;
    this.workspace = workspace.workspace;
    this.expect = { owner: workspace.id, box: 'inbox' };
    this.reader = new SignalBoxReader(workspace.inbox, this.expect, { settleMs: options.settleMs });
    this.idIndex = new InboxIdIndex(
      join(workspacePaths(workspace.workspace).state, INBOX_ID_INDEX_DIR),
      workspace.inbox,
      this.expect,
      beforeWrite,
    );
  }

  async list(options: ReadBoxOptions = {}): Promise<SignalReadResult> {
    return this.reader.read(options);
  }

  /** A signal whose ack file is corrupt is not pending: it is left to a person (its ack is in `invalid`). */
  async pending(options: ReadBoxOptions = {}): Promise<SignalReadResult> {
    const { signals, invalid } = this.reader.read(options);
    const brokenAcks = new Set(invalid.map((file) => file.file));
    return { signals: signals.filter((s) => !s.message.acknowledged && !brokenAcks.has(ackFileName(s.file))), invalid };
  }

  /** Streaming, from the listing: see pendingFileBatches. Nothing parsed is kept between batches. */
  pendingBatches(options: PendingBatchOptions = {}): AsyncIterable<SignalReadResult> {
    return pendingFileBatches(this.location, this.expect, this.validAcks, {
      batchSize: options.batchSize ?? 256,
      verify: options.verify ?? false,
      settleMs: this.settleMs,
      types: options.types,
      trustAcks: options.trustAcks,
    });
  }

  /**
   * With a hint, the name the send published the signal under (`signalFileName` of its sent fact) and,
   * past a collision, the next few names of its run — each read and checked to carry the id, never
   * trusted; only when none does is the whole inbox read.
   */
  async find(id: string, hint?: FindHint): Promise<SignalEntry[]> {
    const wanted = id.toLowerCase();
    const hinted =
      hint &&
      findInNameRun(
        this.location,
        signalFileName(hint),
        (file) => readSignalEntry(this.location, file, this.expect, wanted),
        HINTED_NAMES,
      );
    if (hinted) return [hinted];
    // A hint that missed (the copy moved, or was archived): the inbox as read, incrementally, by this reader.
    if (hint) return this.reader.read().signals.filter((s) => s.message.id === wanted);
    // Without a hint (no sent fact: written by another tool), the id index names the files, each checked.
    // While it covers the inbox as it is, its shard of the pack knows every stored copy of the id. Else, or
    // when every copy it names is acknowledged already (a copy may have come while an ack moved the claim),
    // it is brought up to date first (the inbox listed, only files it has not indexed read): every stored
    // copy of the id is acknowledged, one written since the last lookup too.
    if (this.idIndex.covers()) {
      const covered = this.indexedCopies(wanted);
      if (covered?.some((s) => !s.message.acknowledged)) return covered;
    }
    const whole = this.idIndex.refresh();
    const indexed = this.indexedCopies(wanted);
    if (indexed !== undefined && (indexed.length > 0 || whole)) return indexed;
    // Indexed before yet not found, or an index that cannot say (another process rewrote it meanwhile, or
    // it is torn): the whole inbox is read, and indexed again when the index was wrong about this id.
    const { signals } = this.reader.read();
    const found = signals.filter((s) => s.message.id === wanted);
    if (found.length > 0) this.idIndex.rebuild(signals.map((s) => ({ id: s.message.id, file: s.file })));
    return found;
  }

  /** The copies of `id` the index names, each read and checked to carry it; undefined when it cannot say. */
  private indexedCopies(id: string): SignalEntry[] | undefined {
    return this.idIndex.namesOf(id)?.flatMap((file) => readSignalEntry(this.location, file, this.expect, id) ?? []);
  }

  /** A file name, or an absolute path that lies directly in this inbox (nothing else can be named here). */
  async lookup(name: string): Promise<BoxLookup> {
    const file = this.fileNamed(name);
    // A signal's name alone when it is a valid signal, and nothing when nothing is there (not even a
    // dangling link): a lookup costs the same in any size of inbox (the apply looks each signal up again
    // once another process wrote). Anything else — an invalid file, whose reason is the reader's to give,
    // or a name the reader never takes for a signal (an ack, a hidden file) — is as the inbox read says.
    if (isSignalFileName(file)) {
      const named = readSignalEntry(this.location, file, this.expect);
      if (named) return { signal: named };
      if (lstatSync(join(this.location, file), { throwIfNoEntry: false }) === undefined) return undefined;
    }
    const { signals, invalid } = this.reader.read();
    const signal = signals.find((s) => s.file === file);
    if (signal) return { signal };
    const bad = invalid.find((i) => i.file === file);
    return bad ? { invalid: bad } : undefined;
  }

  /**
   * Each ack file's content is fsynced as it is created, the inbox directory once for the batch: the
   * per-ack cost stays a file creation, however many acks (and files) the inbox has.
   */
  async acknowledge(signals: readonly SignalEntry[], options: AcknowledgeOptions = {}): Promise<AcknowledgeBatch> {
    const batch: AcknowledgeBatch = { acknowledged: [], failed: [] };
    // Acks are no signals: an id index that covered the inbox right before covers it after them too.
    const indexCovered = this.idIndex.stillCovers();
    for (const signal of signals) {
      try {
        const ack = writeAck(signal, { ...options, syncDirectory: false });
        batch.acknowledged.push(ack);
        // The name from the listing, not a slice of the ack path (a slice would keep the whole path alive).
        if (dirname(signal.path) === this.location) this.validAcks.add(ackFileName(signal.file));
      } catch (error) {
        if (!(error instanceof FedError)) throw error;
        batch.failed.push({ signal, error });
      }
    }
    if (indexCovered) this.idIndex.coverOwnWrites();
    if (batch.acknowledged.length > 0 && (options.durable ?? true)) fsyncDirectory(this.location);
    return batch;
  }

  async quarantine(file: InvalidSignalFile, options: QuarantineOptions = {}): Promise<QuarantineResult> {
    this.beforeWrite(quarantineDirectory(this.workspace));
    return quarantineSignalFile(file, options);
  }

  async reclaim(options: TransportWriteOptions = {}): Promise<string[]> {
    return restoreSettledQuarantine(this.workspace, this.expect, this.quarantineChecked, options);
  }

  watch(options: WatchOptions = {}): SignalSubscription {
    // fs.watch needs the directory to exist; it is part of every workspace's layout anyway.
    ensureDirectory(this.location);
    return watchSignalBox(this.location, this.expect, options);
  }

  /**
   * The inbox folder's change events, filtered to signal file names (a publish links one in under its
   * final name): acks and temp files — the consumer's own writes among them — wake nobody. Nothing is
   * read. Told once when the watch is live too, since a signal may have arrived before it.
   */
  onArrival(onArrival: () => void, onError: (error: Error) => void): () => void {
    let stopped = false;
    const stop = watchFolder(new SharedDirectoryWatchers(), this.location, {
      onChange: (name) => {
        if (name === null || isSignalFileName(name)) onArrival();
      },
      onError,
    });
    // Told once the watch is live: a signal may have arrived before it.
    setImmediate(() => {
      if (!stopped) onArrival();
    });
    return () => {
      stopped = true;
      stop();
    };
  }

  private fileNamed(name: string): string {
    if (!isAbsolute(name)) {
      if (name.includes('/') || name.includes('\\')) {
        throw new RefusedError(
          'UNKNOWN_SIGNAL',
          `"${name}" is neither a signal id nor a file name in ${this.location}`,
        );
      }
      return name;
    }
    const dir = realDir(dirname(name));
    if (dir === undefined || dir !== realDir(this.location)) {
      throw new RefusedError(
        'UNKNOWN_SIGNAL',
        `${name} is not in the inbox ${this.location}; only signals of that inbox can be acknowledged there`,
      );
    }
    return basename(name);
  }
}

/** A party's outbox in file-signal-v1: `<workspace>/.fed/signals/outbox/`, the record copies of what it sent. */
export class FileSignalOutbox implements SignalOutbox {
  readonly party: string;
  readonly location: string;
  private readonly reader: SignalBoxReader;

  constructor(workspace: SignalWorkspace) {
    this.party = workspace.id;
    this.location = workspace.outbox;
    this.reader = new SignalBoxReader(workspace.outbox, { owner: workspace.id, box: 'outbox' });
  }

  async list(options: ReadBoxOptions = {}): Promise<SignalReadResult> {
    return this.reader.read(options);
  }
}

function realDir(dir: string): string | undefined {
  try {
    return realpathSync(dir);
  } catch {
    return undefined;
  }
}
