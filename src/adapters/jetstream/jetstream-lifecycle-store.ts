import { CorruptFileError, LifecycleConflictError } from '../../errors.js';
import { toJsonText } from '../../fs/json-text.js';
import type { EnvelopeVersion, LifecycleSection, LifecycleStore, StoredEnvelope } from '../../ports/lifecycle-store.js';
import { envelopeSchema, journalLineSchema, type JournalLine, type LifecycleEnvelope } from '../../schema/lifecycle-state.js';
import { zodProblemText } from '../../schema/problems.js';
import type { RegistryEntry } from '../../schema/registry.js';
import { isWrongLastSequence } from './jetstream-registry-store.js';
import type { FederationStreams } from './federation-streams.js';
import { acquireKvLease, type KvLeaseOptions } from './kv-lease.js';
import type { JetStreamNames } from './names.js';
import { retryTransient } from './transient.js';

const decoder = new TextDecoder();

/**
 * Team lifecycles in JetStream: the envelope is one KV entry per team whose revision is the version of
 * the compare-and-swap (a write lands only on the revision it read — two machines cannot both apply
 * their step), the writer's exclusive section is a KV lease (src/adapters/jetstream/kv-lease.ts), and
 * the journal is a stream with one subject per line, so appending by seq is idempotent and the tail is a
 * few direct lookups, however long the journal.
 */
export class JetStreamLifecycleStore implements LifecycleStore {
  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    private readonly names: JetStreamNames,
    private readonly where: string,
    private readonly leaseOptions: KvLeaseOptions = {},
  ) {}

  envelopeLocation(team: RegistryEntry): string {
    return `${this.where} KV ${this.names.lifecycleBucket}/${team.domainId}`;
  }

  /** The KV entry's revision (the entry comes along, but is neither parsed nor validated). */
  async version(team: RegistryEntry): Promise<EnvelopeVersion> {
    const { lifecycle } = await this.streams();
    const entry = await retryTransient(() => lifecycle.get(team.domainId));
    return entry && entry.operation === 'PUT' ? String(entry.revision) : null;
  }

  async read(team: RegistryEntry): Promise<StoredEnvelope | undefined> {
    const { lifecycle } = await this.streams();
    const entry = await retryTransient(() => lifecycle.get(team.domainId));
    if (!entry || entry.operation !== 'PUT') return undefined;
    return { envelope: this.parse(team, entry.value), version: String(entry.revision) };
  }

  private parse(team: RegistryEntry, value: Uint8Array): LifecycleEnvelope {
    let raw: unknown;
    try {
      raw = JSON.parse(decoder.decode(value));
    } catch (error) {
      throw new CorruptFileError(this.envelopeLocation(team), `not valid JSON (${(error as Error).message})`);
    }
    const parsed = envelopeSchema.safeParse(raw);
    if (!parsed.success) throw new CorruptFileError(this.envelopeLocation(team), zodProblemText(parsed.error));
    return parsed.data;
  }

  async write(team: RegistryEntry, envelope: LifecycleEnvelope, expected: EnvelopeVersion, section: LifecycleSection): Promise<EnvelopeVersion> {
    section.assertHeld();
    const { lifecycle } = await this.streams();
    const text = toJsonText(envelope);
    let retried = false;
    try {
      const revision = await retryTransient((attempt) => {
        retried = attempt > 1;
        section.assertHeld();
        return expected === null ? lifecycle.create(team.domainId, text) : lifecycle.update(team.domainId, text, Number(expected));
      });
      return String(revision);
    } catch (error) {
      if (!isWrongLastSequence(error) && !/key exists/i.test((error as Error).message)) throw error;
      // An attempt that timed out may have landed before its retry was refused: then it is ours.
      const now = retried ? await retryTransient(() => lifecycle.get(team.domainId)) : null;
      if (now && now.operation === 'PUT' && decoder.decode(now.value) === text) return String(now.revision);
      throw new LifecycleConflictError(team.domainId, this.envelopeLocation(team));
    }
  }

  async exclusive<T>(team: RegistryEntry, fn: (section: LifecycleSection) => Promise<T>): Promise<T> {
    const { lifecycle } = await this.streams();
    const lease = await acquireKvLease(lifecycle, `lock.${team.domainId}`, `the lifecycle lease of team "${team.domainId}"`, this.leaseOptions);
    try {
      return await fn({ team: team.domainId, assertHeld: () => lease.assertHeld() });
    } finally {
      await lease.release();
    }
  }

  /** The journal line with `seq`, if stored. */
  private async line(team: RegistryEntry, seq: number): Promise<JournalLine | undefined> {
    const { session } = await this.streams();
    const message = await retryTransient(() => session.jsm.direct.getMessage(this.names.journalStream, { last_by_subj: this.names.journalSubject(team.domainId, seq) }));
    if (!message) return undefined;
    const parsed = journalLineSchema.safeParse(message.json());
    if (!parsed.success) throw new CorruptFileError(`${this.where} stream ${this.names.journalStream} seq ${message.seq}`, zodProblemText(parsed.error));
    return parsed.data;
  }

  /** The seq of the last line, 0 for an empty journal. */
  private async lastSeq(team: RegistryEntry): Promise<number> {
    const { session } = await this.streams();
    const message = await retryTransient(() => session.jsm.direct.getMessage(this.names.journalStream, { last_by_subj: this.names.journalFilter(team.domainId) }));
    if (!message) return 0;
    const seq = Number(message.subject.slice(message.subject.lastIndexOf('.') + 1));
    return Number.isInteger(seq) ? seq : 0;
  }

  async appendJournal(team: RegistryEntry, lines: readonly JournalLine[]): Promise<number> {
    const { session } = await this.streams();
    let added = 0;
    for (const line of lines) {
      if (await this.line(team, line.seq)) continue;
      // The message id makes a publish repeated after a lost reply land once.
      const ack = await retryTransient(() => session.js.publish(this.names.journalSubject(team.domainId, line.seq), toJsonText(journalLineSchema.parse(line)), { msgID: `${team.domainId}.${line.seq}` }));
      if (!ack.duplicate) added++;
    }
    return added;
  }

  async journalTail(team: RegistryEntry, count: number): Promise<JournalLine[]> {
    const last = await this.lastSeq(team);
    const seqs = Array.from({ length: Math.max(0, Math.min(count, last)) }, (_, i) => last - Math.min(count, last) + 1 + i);
    const lines = await Promise.all(seqs.map((seq) => this.line(team, seq)));
    return lines.filter((line): line is JournalLine => line !== undefined);
  }
}
