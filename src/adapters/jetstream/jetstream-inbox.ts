import { CorruptFileError, RefusedError } from '../../core/errors.js';
import { toJsonText } from '../../core/json-text.js';
import type {
  AcknowledgeBatch,
  AcknowledgeOptions,
  AckResult,
  BoxLookup,
  InvalidSignalFile,
  PendingBatchOptions,
  QuarantineOptions,
  QuarantineResult,
  SignalEntry,
  SignalInbox,
  SignalReadResult,
  SignalSubscription,
  WatchOptions,
} from '../../ports/signal-transport.js';
import type { SignalParty } from '../../core/resolve-party.js';
import type { SignalAck } from '../../core/schema/signal.js';
import { recordSignalAcknowledged } from '../../infra/telemetry/fed-metrics.js';
import type { FederationStreams } from './federation-streams.js';
import { isWrongLastSequence } from './jetstream-errors.js';
import type { JetStreamNames } from './names.js';
import { readSubjectSince } from './read-subject.js';
import { ackKey, compareEntries, judgeRecord, parseAck, signalLocation, withAck } from './signal-records.js';
import { retryTransient } from './transient.js';
import { watchInbox } from './watch-inbox.js';
import { watchInboxArrivals } from './inbox-arrivals.js';

/** Acks in flight at once: enough to overlap a consumer batch's round trips, few enough to bound memory. */
const ACK_WINDOW = 256;

/**
 * One party's inbox in JetStream: the messages on `fed.<federation>.inbox.<party>.*`, each shown with its
 * acknowledgment from the ack bucket. What was read is kept, so reading again costs only what arrived
 * (messages and acknowledgments both are read from the last sequence seen) — except what a read of the
 * pending signals finds acknowledged: a consumer never asks for it again, so it is dropped (its ack stays),
 * and the inbox holds the pending signals and one ack per id however long it runs. A later read of the
 * whole inbox reads it again.
 */
export class JetStreamInbox implements SignalInbox {
  readonly party: string;
  readonly location: string;
  private readonly signals = new Map<string, SignalEntry>();
  private readonly invalid = new Map<string, InvalidSignalFile>();
  private readonly acks = new Map<string, SignalAck>();
  /** When the server stored each entry, by handle (for a watch's "already there"). */
  private readonly storedAt = new Map<string, number>();
  private lastSignalSeq = 0;
  private lastAckSeq = 0;
  /** Sequences (KV revisions) of the acks this inbox created since its last read of the ack stream. */
  private readonly ownAckSeqs = new Set<number>();
  /** Whether acknowledged signals were dropped: a read that shows them starts over. */
  private dropped = false;

  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    private readonly names: JetStreamNames,
    party: SignalParty,
    private readonly streamWhere: string,
  ) {
    this.party = party.id;
    this.location = `${streamWhere} subject ${names.inboxFilter(party.id)}`;
  }

  /**
   * Read what arrived since the last read: new messages, and acknowledgments recorded since. The two reads
   * are independent (an ack read for a message the other read missed waits in `acks` for it), so they
   * are in flight together.
   */
  private async refresh(): Promise<void> {
    const names = this.names;
    const { session } = await this.streams();
    const [records, ackRecords] = await Promise.all([
      readSubjectSince(session, names.signalStream, names.inboxFilter(this.party), this.lastSignalSeq),
      readSubjectSince(
        session,
        `KV_${names.ackBucket}`,
        `$KV.${names.ackBucket}.${this.party}.>`,
        this.lastAckSeq,
        (last) => this.onlyOwnAcks(last),
      ),
    ]);
    for (const record of records) {
      this.lastSignalSeq = Math.max(this.lastSignalSeq, record.seq);
      this.storedAt.set(String(record.seq), record.storedAt);
      const judged = judgeRecord({ where: this.streamWhere }, record, this.party, 'inbox');
      if ('signal' in judged) this.signals.set(judged.signal.file, judged.signal);
      else this.invalid.set(judged.invalid.file, judged.invalid);
    }
    for (const record of ackRecords) {
      this.lastAckSeq = Math.max(this.lastAckSeq, record.seq);
      const ack = parseAck(record.data);
      if (ack) this.acks.set(record.subject.slice(record.subject.lastIndexOf('.') + 1), ack);
    }
    for (const seq of this.ownAckSeqs) if (seq <= this.lastAckSeq) this.ownAckSeqs.delete(seq);
  }

  /**
   * Whether every sequence of the ack bucket after the last one read, up to `last`, is an ack this inbox
   * created (and so already holds): then reading them back is skipped — what a consumer that acknowledged
   * a batch would otherwise do on its next read. Any other writer's entry in between means a real read.
   */
  private onlyOwnAcks(last: number): boolean {
    if (last - this.lastAckSeq > this.ownAckSeqs.size) return false;
    for (let seq = this.lastAckSeq + 1; seq <= last; seq++) if (!this.ownAckSeqs.has(seq)) return false;
    this.lastAckSeq = last;
    return true;
  }

  /** Read what arrived, after starting over when acknowledged signals were dropped and `whole` wants them. */
  private async read(whole: boolean): Promise<void> {
    if (whole && this.dropped) {
      this.signals.clear();
      this.invalid.clear();
      this.acks.clear();
      this.storedAt.clear();
      this.ownAckSeqs.clear();
      this.lastSignalSeq = 0;
      this.lastAckSeq = 0;
      this.dropped = false;
    }
    await this.refresh();
  }

  /**
   * Drop the signals read that are acknowledged (and their times): nobody asks for them again. Their acks
   * stay (a small record per id): acks are by id, and a copy of the signal stored later — a retried send
   * past the server's duplicate window — is acknowledged already and must not be applied again.
   */
  private dropAcknowledged(): void {
    for (const [file, entry] of this.signals) {
      if (!this.acks.get(entry.message.id)?.acknowledged) continue;
      this.signals.delete(file);
      this.storedAt.delete(file);
      this.dropped = true;
    }
  }

  private result(filter: (entry: SignalEntry) => boolean): SignalReadResult {
    const signals = [...this.signals.values()]
      .map((entry) => withAck(entry, this.acks.get(entry.message.id)))
      .filter(filter)
      .sort(compareEntries);
    return { signals, invalid: [...this.invalid.values()] };
  }

  async list(): Promise<SignalReadResult> {
    await this.read(true);
    return this.result(() => true);
  }

  async pending(): Promise<SignalReadResult> {
    await this.read(false);
    this.dropAcknowledged();
    return this.result((entry) => !entry.message.acknowledged);
  }

  /**
   * The pending signals of one read, handed out in slices: this bounds the work per batch; the inbox holds
   * the pending signals only (see the class).
   */
  async *pendingBatches(options: PendingBatchOptions = {}): AsyncGenerator<SignalReadResult> {
    const { signals: pending, invalid } = await this.pending();
    const types = options.types;
    const signals = types ? pending.filter((entry) => types.includes(entry.message.type)) : pending;
    const size = Math.max(1, options.batchSize ?? 256);
    if (signals.length === 0 && invalid.length > 0) yield { signals: [], invalid };
    for (let i = 0; i < signals.length; i += size)
      yield { signals: signals.slice(i, i + size), invalid: i === 0 ? invalid : [] };
  }

  /**
   * Straight to the copy when the send left a hint of its sequence (checked: it is in this inbox and
   * carries the id); otherwise, or when the hint leads nowhere, by reading the inbox.
   */
  async find(id: string): Promise<SignalEntry[]> {
    const wanted = id.toLowerCase();
    const hinted = await this.findByHint(wanted);
    if (hinted) return [hinted];
    await this.read(true);
    return this.result((entry) => entry.message.id === wanted).signals;
  }

  private async findByHint(id: string): Promise<SignalEntry | undefined> {
    const { delivery } = await this.streams();
    const hint = await retryTransient(() => delivery.get(this.names.seqHintKey(id)));
    if (hint?.operation !== 'PUT') return undefined;
    const found = await this.signalAt(Number(hint.string()));
    return found?.message.id === id ? found : undefined;
  }

  /**
   * The valid signal stored at `seq` on this inbox's subject, its ack merged in, by two requests; undefined
   * when there is none there (removed, another subject, invalid) — or a replica behind the stream did not
   * have it yet, which the caller's read of the inbox, at the leader, settles.
   */
  private async signalAt(seq: number): Promise<SignalEntry | undefined> {
    if (!Number.isSafeInteger(seq) || seq <= 0) return undefined;
    const { session } = await this.streams();
    // Removed since (quarantined), the server's status 404 "Message Not Found", which the client's direct
    // get returns as null.
    const stored = await retryTransient(() => session.jsm.direct.getMessage(this.names.signalStream, { seq }));
    if (!stored || !stored.subject.startsWith(this.names.inboxFilter(this.party).slice(0, -1))) return undefined;
    const judged = judgeRecord(
      { where: this.streamWhere },
      { seq, subject: stored.subject, data: stored.data, storedAt: 0, headers: {} },
      this.party,
      'inbox',
    );
    if (!('signal' in judged)) return undefined;
    // Its ack asked of the bucket's leader, not with a direct get, which any replica answers: one behind it
    // would call an acknowledged signal unacknowledged, and an apply reading against a version written
    // after that ack would take it again (read-subject.ts reads the leader for the same reason). A
    // deletion marker, the last message of a removed key, has no ack in it. Any sender's ack of the id, as
    // the inbox's read counts acks (by id): a copy another tool published under the id of an acknowledged
    // signal is that signal, taken.
    const ack = await retryTransient(() =>
      session.jsm.streams.getMessage(`KV_${this.names.ackBucket}`, {
        last_by_subj: `$KV.${this.names.ackBucket}.${ackKey({ ...judged.signal.message, from: '*' })}`,
      }),
    );
    return withAck(judged.signal, ack ? parseAck(ack.data) : undefined);
  }

  async lookup(name: string): Promise<BoxLookup> {
    const prefix = signalLocation(this.streamWhere, '');
    const handle = name.startsWith(prefix) ? name.slice(prefix.length) : name;
    if (!/^\d+$/.test(handle)) {
      if (name.includes('/') || name.includes(' ')) {
        throw new RefusedError(
          'UNKNOWN_SIGNAL',
          `"${name}" is not a signal of the inbox of "${this.party}" (${this.location}); name a signal by its id or its sequence number`,
        );
      }
      return undefined;
    }
    // The one message, in any length of inbox (the apply looks each signal up again once another process
    // wrote); the inbox is read only for what that cannot tell: an invalid message's reason, or one a
    // replica behind the stream did not have yet.
    const named = await this.signalAt(Number(handle));
    if (named) return { signal: named };
    await this.read(true);
    const signal = this.signals.get(handle);
    if (signal) return { signal: withAck(signal, this.acks.get(signal.message.id)) };
    const bad = this.invalid.get(handle);
    return bad ? { invalid: bad } : undefined;
  }

  /**
   * Each ack is independent of the others, so a batch's acks are in flight together (up to ACK_WINDOW at a
   * time): their round trips overlap instead of adding up. Results keep the order of `signals`.
   */
  async acknowledge(signals: readonly SignalEntry[], options: AcknowledgeOptions = {}): Promise<AcknowledgeBatch> {
    const batch: AcknowledgeBatch = { acknowledged: [], failed: [] };
    for (let i = 0; i < signals.length; i += ACK_WINDOW) {
      const window = signals.slice(i, i + ACK_WINDOW);
      const outcomes = await Promise.allSettled(window.map((signal) => this.acknowledgeOne(signal, options)));
      outcomes.forEach((outcome, j) => {
        if (outcome.status === 'fulfilled') batch.acknowledged.push(outcome.value);
        else batch.failed.push({ signal: window[j]!, error: outcome.reason as Error });
      });
    }
    return batch;
  }

  /**
   * The ack is created exclusively (a KV create), so the first acknowledgment's time is kept and two
   * concurrent acknowledgers agree on one — the file adapter's no-clobber ack file, as a KV entry.
   */
  private async acknowledgeOne(signal: SignalEntry, options: AcknowledgeOptions): Promise<AckResult> {
    const { acks, session } = await this.streams();
    const key = ackKey(signal.message);
    const ackPath = `${session.servers.join(',')} KV ${this.names.ackBucket}/${key}`;
    const ack: SignalAck = { acknowledged: true, acknowledged_at: (options.now?.() ?? new Date()).toISOString() };
    const text = toJsonText(ack);
    // The common case first, in one round trip: nobody acknowledged it yet, so the create lands.
    const created = await this.createAck(acks, key, text);
    if (created === 'created') return this.acknowledged(signal, ack, ackPath);
    for (;;) {
      const existing = await retryTransient(() => acks.get(key));
      if (existing && existing.operation === 'PUT') {
        // A create whose reply was lost (a server restart, a cluster failover) may have landed before its
        // retry found the key taken: what is stored is then this very ack, acknowledged now for the first time.
        if (created === 'retried-exists' && existing.string() === text) return this.acknowledged(signal, ack, ackPath);
        const stored = parseAck(existing.value);
        if (!stored) throw new CorruptFileError(ackPath, 'not a valid acknowledgment');
        if (stored.acknowledged) {
          this.acks.set(signal.message.id, stored);
          return { signal: withAck(signal, stored), ackPath, alreadyAcknowledged: true };
        }
      }
      try {
        // An ack that says "not acknowledged" (docs/design/spec.md §2.2 allows it) is superseded, like the ack file.
        await retryTransient(() => (existing ? acks.update(key, text, existing.revision) : acks.create(key, text)));
      } catch (error) {
        // Someone acknowledged it meanwhile (the server's "wrong last sequence"): read theirs, which is the first.
        if (isWrongLastSequence(error)) continue;
        throw error;
      }
      return this.acknowledged(signal, ack, ackPath);
    }
  }

  /**
   * Create the ack entry, remembering its sequence. When one is there already, says whether an earlier
   * attempt of this very create was retried (it may be the one that is there).
   */
  private async createAck(
    acks: FederationStreams['acks'],
    key: string,
    text: string,
  ): Promise<'created' | 'exists' | 'retried-exists'> {
    let retried = false;
    try {
      this.ownAckSeqs.add(
        await retryTransient((attempt) => {
          retried = attempt > 1;
          return acks.create(key, text);
        }),
      );
      return 'created';
    } catch (error) {
      // The server's "wrong last sequence": the key holds an ack already.
      if (isWrongLastSequence(error)) return retried ? 'retried-exists' : 'exists';
      throw error;
    }
  }

  private acknowledged(signal: SignalEntry, ack: SignalAck, ackPath: string): AckResult {
    this.acks.set(signal.message.id, ack);
    recordSignalAcknowledged(signal.message.to, signal.message.type);
    return { signal: withAck(signal, ack), ackPath, alreadyAcknowledged: false };
  }

  /**
   * Move an invalid message to the quarantine stream, with the reason in its headers: stored there first,
   * removed from the inbox after, so a crash in between leaves a copy too many, never none.
   */
  async quarantine(file: InvalidSignalFile, options: QuarantineOptions = {}): Promise<QuarantineResult> {
    const { session } = await this.streams();
    const { jsm, js } = session;
    const names = this.names;
    const seq = Number(file.file);
    const stored = await retryTransient(() => jsm.direct.getMessage(names.signalStream, { seq }));
    if (!stored) throw new RefusedError('UNKNOWN_SIGNAL', `${file.path} is no longer in the inbox of "${this.party}"`);
    const { headers: natsHeaders } = await import('@nats-io/transport-node');
    const headers = natsHeaders();
    headers.set('Fed-Quarantine-Reason', file.reason);
    headers.set('Fed-Original-Subject', stored.subject);
    headers.set('Fed-Original-Seq', String(seq));
    headers.set('Fed-Quarantined-At', (options.now?.() ?? new Date()).toISOString());
    const ack = await retryTransient(() =>
      js.publish(names.quarantineSubject(this.party), stored.data, { headers, msgID: `quarantine-${seq}` }),
    );
    await retryTransient(() => jsm.streams.deleteMessage(names.signalStream, seq, false)).catch(
      async (error: unknown) => {
        // Gone already (a retried delete whose first attempt landed, another quarantine) is what this wanted.
        // The server has no code of its own for that: it answers 10057 "{err}" (any failed delete) with the
        // store's "no message found" as text, or 10043 "sequence not found". So the stream is asked instead:
        // its get answers 10037 "no message found", which the client returns as null.
        const gone = await retryTransient(() => jsm.streams.getMessage(names.signalStream, { seq })).then(
          (left) => left === null,
          () => false,
        );
        if (!gone) throw error;
      },
    );
    this.invalid.delete(file.file);
    const path = `${session.servers.join(',')} stream ${names.quarantineStream} seq ${ack.seq}`;
    return { path, reasonPath: `${path} (header Fed-Quarantine-Reason)` };
  }

  /** Nobody fills a JetStream message in place, so nothing quarantined ever becomes valid later. */
  async reclaim(): Promise<string[]> {
    return [];
  }

  watch(options: WatchOptions = {}): SignalSubscription {
    return watchInbox(this.streams, this.names, this, options);
  }

  onArrival(onArrival: () => void, onError: (error: Error) => void): () => void {
    return watchInboxArrivals(this.streams, this.names, this.party, onArrival, onError);
  }

  /** For the watch: what arrived since the last read, and the highest sequence read so far. */
  async readNew(afterSeq: number): Promise<{ signals: SignalEntry[]; invalid: InvalidSignalFile[]; lastSeq: number }> {
    await this.read(true);
    const fresh = this.result((entry) => Number(entry.file) > afterSeq);
    return {
      signals: fresh.signals,
      invalid: fresh.invalid.filter((bad) => Number(bad.file) > afterSeq),
      lastSeq: this.lastSignalSeq,
    };
  }

  /** When the server stored the entry (ms, the server's clock); 0 when unknown. */
  storedAtOf(file: string): number {
    return this.storedAt.get(file) ?? 0;
  }
}
