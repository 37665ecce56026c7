import { CorruptFileError, RefusedError } from '../../errors.js';
import { toJsonText } from '../../fs/json-text.js';
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
  SignalParty,
  SignalReadResult,
  SignalSubscription,
  WatchOptions,
} from '../../ports/signal-transport.js';
import type { SignalAck } from '../../schema/signal.js';
import { recordSignalAcknowledged } from '../../telemetry/fed-metrics.js';
import type { FederationStreams } from './federation-streams.js';
import { isWrongLastSequence } from './jetstream-registry-store.js';
import type { JetStreamNames } from './names.js';
import { readSubjectSince } from './read-subject.js';
import { ackKey, compareEntries, judgeRecord, parseAck, signalLocation, withAck } from './signal-records.js';
import { retryTransient } from './transient.js';
import { watchInbox } from './watch-inbox.js';

/**
 * One party's inbox in JetStream: the messages on `fed.<federation>.inbox.<party>.*`, each shown with its
 * acknowledgment from the ack bucket. What was read is kept, so reading again costs only what arrived
 * (messages and acknowledgments both are read from the last sequence seen).
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

  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    private readonly names: JetStreamNames,
    party: SignalParty,
    private readonly streamWhere: string,
  ) {
    this.party = party.id;
    this.location = `${streamWhere} subject ${names.inboxFilter(party.id)}`;
  }

  /** Read what arrived since the last read: new messages, and acknowledgments recorded since. */
  private async refresh(): Promise<void> {
    const names = this.names;
    const { session } = await this.streams();
    const records = await readSubjectSince(session, names.signalStream, names.inboxFilter(this.party), this.lastSignalSeq);
    for (const record of records) {
      this.lastSignalSeq = Math.max(this.lastSignalSeq, record.seq);
      this.storedAt.set(String(record.seq), record.storedAt);
      const judged = judgeRecord({ where: this.streamWhere }, record, this.party, 'inbox');
      if ('signal' in judged) this.signals.set(judged.signal.file, judged.signal);
      else this.invalid.set(judged.invalid.file, judged.invalid);
    }
    const ackRecords = await readSubjectSince(session, `KV_${names.ackBucket}`, `$KV.${names.ackBucket}.${this.party}.>`, this.lastAckSeq);
    for (const record of ackRecords) {
      this.lastAckSeq = Math.max(this.lastAckSeq, record.seq);
      const ack = parseAck(record.data);
      if (ack) this.acks.set(record.subject.slice(record.subject.lastIndexOf('.') + 1), ack);
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
    await this.refresh();
    return this.result(() => true);
  }

  async pending(): Promise<SignalReadResult> {
    await this.refresh();
    return this.result((entry) => !entry.message.acknowledged);
  }

  /**
   * The pending signals of one read, handed out in slices. The inbox keeps what it read anyway (reading
   * again costs only what arrived), so this bounds the work per batch, not what the inbox holds.
   */
  async *pendingBatches(options: PendingBatchOptions = {}): AsyncGenerator<SignalReadResult> {
    const { signals, invalid } = await this.pending();
    const size = Math.max(1, options.batchSize ?? 256);
    if (signals.length === 0 && invalid.length > 0) yield { signals: [], invalid };
    for (let i = 0; i < signals.length; i += size) yield { signals: signals.slice(i, i + size), invalid: i === 0 ? invalid : [] };
  }

  async find(id: string): Promise<SignalEntry[]> {
    await this.refresh();
    return this.result((entry) => entry.message.id === id.toLowerCase()).signals;
  }

  async lookup(name: string): Promise<BoxLookup> {
    const prefix = signalLocation(this.streamWhere, '');
    const handle = name.startsWith(prefix) ? name.slice(prefix.length) : name;
    if (!/^\d+$/.test(handle)) {
      if (name.includes('/') || name.includes(' ')) {
        throw new RefusedError('UNKNOWN_SIGNAL', `"${name}" is not a signal of the inbox of "${this.party}" (${this.location}); name a signal by its id or its sequence number`);
      }
      return undefined;
    }
    await this.refresh();
    const signal = this.signals.get(handle);
    if (signal) return { signal: withAck(signal, this.acks.get(signal.message.id)) };
    const bad = this.invalid.get(handle);
    return bad ? { invalid: bad } : undefined;
  }

  async acknowledge(signals: readonly SignalEntry[], options: AcknowledgeOptions = {}): Promise<AcknowledgeBatch> {
    const batch: AcknowledgeBatch = { acknowledged: [], failed: [] };
    for (const signal of signals) {
      try {
        batch.acknowledged.push(await this.acknowledgeOne(signal, options));
      } catch (error) {
        batch.failed.push({ signal, error: error as Error });
      }
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
    for (;;) {
      const existing = await retryTransient(() => acks.get(key));
      if (existing && existing.operation === 'PUT') {
        const stored = parseAck(existing.value);
        if (!stored) throw new CorruptFileError(ackPath, 'not a valid acknowledgment');
        if (stored.acknowledged) {
          this.acks.set(signal.message.id, stored);
          return { signal: withAck(signal, stored), ackPath, alreadyAcknowledged: true };
        }
      }
      try {
        // An ack that says "not acknowledged" (spec §2.2 allows it) is superseded, like the ack file.
        await retryTransient(() => (existing ? acks.update(key, text, existing.revision) : acks.create(key, text)));
      } catch (error) {
        // Someone acknowledged it meanwhile: read theirs, which is the first.
        if (isWrongLastSequence(error) || /key exists/i.test((error as Error).message)) continue;
        throw error;
      }
      this.acks.set(signal.message.id, ack);
      recordSignalAcknowledged(signal.message.to, signal.message.type);
      return { signal: withAck(signal, ack), ackPath, alreadyAcknowledged: false };
    }
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
    const ack = await retryTransient(() => js.publish(names.quarantineSubject(this.party), stored.data, { headers, msgID: `quarantine-${seq}` }));
    await retryTransient(() => jsm.streams.deleteMessage(names.signalStream, seq, false)).catch((error: unknown) => {
      if (!/no message found/i.test((error as Error).message)) throw error;
    });
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

  /** For the watch: what arrived since the last read, and the highest sequence read so far. */
  async readNew(afterSeq: number): Promise<{ signals: SignalEntry[]; invalid: InvalidSignalFile[]; lastSeq: number }> {
    await this.refresh();
    const fresh = this.result((entry) => Number(entry.file) > afterSeq);
    return { signals: fresh.signals, invalid: fresh.invalid.filter((bad) => Number(bad.file) > afterSeq), lastSeq: this.lastSignalSeq };
  }

  /** When the server stored the entry (ms, the server's clock); 0 when unknown. */
  storedAtOf(file: string): number {
    return this.storedAt.get(file) ?? 0;
  }
}
