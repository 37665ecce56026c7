import { CorruptFileError, LifecycleConflictError } from '../../core/errors.js';
import { toJsonText } from '../../core/json-text.js';
import type {
  EnvelopeVersion,
  KeptRun,
  LifecycleSection,
  LifecycleStore,
  StoredEnvelope,
} from '../../ports/lifecycle-store.js';
import {
  envelopeSchema,
  journalLineSchema,
  type JournalLine,
  type LifecycleEnvelope,
} from '../../core/schema/lifecycle-state.js';
import { parseJsonRecords } from '../../core/schema/json-lines.js';
import { zodProblemText } from '../../core/schema/problems.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { isWrongLastSequence } from './jetstream-errors.js';
import { readSubjectSince } from './read-subject.js';
import { bucketKeys } from './bucket-keys.js';
import type { FederationStreams } from './federation-streams.js';
import { acquireKvLease, kvLeaseHolder, type KvLeaseOptions } from './kv-lease.js';
import type { JetStreamNames } from './names.js';
import { retryTransient } from './transient.js';

const decoder = new TextDecoder();

/**
 * Team lifecycles in JetStream: the envelope is one KV entry per team whose revision is the version of
 * the compare-and-swap (a write lands only on the revision it read — two machines cannot both apply
 * their step), the writer's exclusive section is a KV lease (src/adapters/jetstream/kv-lease.ts), and
 * the journal is a stream with one subject per line, so appending by seq is idempotent and the tail is a
 * few direct lookups, however long the journal. An earlier run is kept as KV entry `run.<team>.<n>`
 * holding its last envelope; its journal lines stay in the stream (their seq goes on across runs), so run
 * n's journal is the lines after run n−1's last seq up to its own.
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

  async write(
    team: RegistryEntry,
    envelope: LifecycleEnvelope,
    expected: EnvelopeVersion,
    section: LifecycleSection,
  ): Promise<EnvelopeVersion> {
    section.assertHeld();
    const { lifecycle } = await this.streams();
    const text = toJsonText(envelope);
    let retried = false;
    try {
      const revision = await retryTransient((attempt) => {
        retried = attempt > 1;
        section.assertHeld();
        return expected === null
          ? lifecycle.create(team.domainId, text)
          : lifecycle.update(team.domainId, text, Number(expected));
      });
      return String(revision);
    } catch (error) {
      // Anything but the server's "wrong last sequence" (the envelope moved on) is a failure.
      if (!isWrongLastSequence(error)) throw error;
      // An attempt that timed out may have landed before its retry was refused: then it is ours.
      const now = retried ? await retryTransient(() => lifecycle.get(team.domainId)) : null;
      if (now && now.operation === 'PUT' && decoder.decode(now.value) === text) return String(now.revision);
      throw new LifecycleConflictError(team.domainId, this.envelopeLocation(team));
    }
  }

  async exclusive<T>(team: RegistryEntry, fn: (section: LifecycleSection) => Promise<T>): Promise<T> {
    const { lifecycle } = await this.streams();
    const lease = await acquireKvLease(
      lifecycle,
      `lock.${team.domainId}`,
      `the lifecycle lease of team "${team.domainId}"`,
      this.leaseOptions,
    );
    try {
      return await fn({ team: team.domainId, assertHeld: () => lease.assertHeld() });
    } finally {
      await lease.release();
    }
  }

  async sectionHolder(team: RegistryEntry): ReturnType<LifecycleStore['sectionHolder']> {
    const { lifecycle } = await this.streams();
    return kvLeaseHolder(lifecycle, `lock.${team.domainId}`, this.leaseOptions);
  }

  // Lookups here go to the stream's leader (streams.getMessage), never a direct get: any replica answers
  // those, and one behind the leader names an older last line or run (see read-subject.ts).

  /** The journal line with `seq`, if stored. */
  private async line(team: RegistryEntry, seq: number): Promise<JournalLine | undefined> {
    const { session } = await this.streams();
    const message = await retryTransient(() =>
      session.jsm.streams.getMessage(this.names.journalStream, {
        last_by_subj: this.names.journalSubject(team.domainId, seq),
      }),
    );
    if (!message) return undefined;
    const parsed = journalLineSchema.safeParse(message.json());
    if (!parsed.success)
      throw new CorruptFileError(
        `${this.where} stream ${this.names.journalStream} seq ${message.seq}`,
        zodProblemText(parsed.error),
      );
    return parsed.data;
  }

  /** The seq of the last line, 0 for an empty journal. */
  private async lastSeq(team: RegistryEntry): Promise<number> {
    const { session } = await this.streams();
    const message = await retryTransient(() =>
      session.jsm.streams.getMessage(this.names.journalStream, {
        last_by_subj: this.names.journalFilter(team.domainId),
      }),
    );
    if (!message) return 0;
    const seq = Number(message.subject.slice(message.subject.lastIndexOf('.') + 1));
    return Number.isInteger(seq) ? seq : 0;
  }

  /**
   * The lines above the journal's last seq, as the file journal appends them: one lookup per call, not one
   * per line. They are published all at once — one connection delivers them in order, so the server
   * stores a prefix of them even if the connection drops midway — and any that failed are published again
   * one by one in seq order (the message id drops those that had landed). So the stored lines are always a
   * prefix of those asked for, and the last seq says what is missing; the round trips of a batch overlap.
   */
  async appendJournal(team: RegistryEntry, lines: readonly JournalLine[]): Promise<number> {
    if (lines.length === 0) return 0;
    const { session } = await this.streams();
    const last = await this.lastSeq(team);
    const missing = lines.filter((line) => line.seq > last);
    // The lines are an envelope's (validated when it was read, or made by the walk that wrote it) or a
    // journal read back through its schema (a migration): written as they are, as the file adapter writes
    // them, not parsed again — a zod parse per applied signal.
    const publish = (line: JournalLine) =>
      session.js.publish(this.names.journalSubject(team.domainId, line.seq), toJsonText(line), {
        msgID: `${team.domainId}.${line.seq}`,
      });
    const first = await Promise.allSettled(missing.map(publish));
    let added = 0;
    for (const [i, outcome] of first.entries()) {
      const ack = outcome.status === 'fulfilled' ? outcome.value : await retryTransient(() => publish(missing[i]!));
      if (!ack.duplicate) added++;
    }
    return added;
  }

  async journalTail(team: RegistryEntry, count: number): Promise<JournalLine[]> {
    const [last, floor] = await Promise.all([
      this.lastSeq(team),
      this.latestKeptRun(team).then((latest) => latest?.kept.envelope.seq ?? 0),
    ]);
    const first = Math.max(floor + 1, last - count + 1);
    const seqs = Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
    const lines = await Promise.all(seqs.map((seq) => this.line(team, seq)));
    return lines.filter((line): line is JournalLine => line !== undefined);
  }

  async journal(team: RegistryEntry, run?: number): Promise<JournalLine[]> {
    const runs = await this.keptRuns(team);
    const index = run === undefined ? runs.length : runs.findIndex((kept) => kept.run === run);
    if (index < 0) return [];
    const after = index === 0 ? 0 : runs[index - 1]!.envelope.seq;
    const upTo = index === runs.length ? Number.POSITIVE_INFINITY : runs[index]!.envelope.seq;
    const { session } = await this.streams();
    const records = await readSubjectSince(
      session,
      this.names.journalStream,
      this.names.journalFilter(team.domainId),
      0,
    );
    return parseJsonRecords(
      records.map((record) => decoder.decode(record.data)),
      journalLineSchema,
    ).filter((line) => line.seq > after && line.seq <= upTo);
  }

  async keptRuns(team: RegistryEntry): Promise<KeptRun[]> {
    const { lifecycle, session } = await this.streams();
    const keys = await bucketKeys(session, this.names.lifecycleBucket, this.runKey(team, '*'));
    const runs = await Promise.all(
      keys.map(async (key) => {
        const entry = await retryTransient(() => lifecycle.get(key));
        return entry && entry.operation === 'PUT'
          ? this.keptRun(team, Number(key.slice(key.lastIndexOf('.') + 1)), entry.value)
          : undefined;
      }),
    );
    return runs.filter((kept): kept is KeptRun => kept !== undefined).sort((a, b) => a.run - b.run);
  }

  async keepRun(team: RegistryEntry, section: LifecycleSection): Promise<KeptRun> {
    section.assertHeld();
    const { lifecycle } = await this.streams();
    const current = await retryTransient(() => lifecycle.get(team.domainId));
    if (!current || current.operation !== 'PUT')
      throw new CorruptFileError(this.envelopeLocation(team), 'there is no lifecycle state to keep');
    const text = decoder.decode(current.value);
    const last = await this.latestKeptRun(team);
    if (last && last.text === text) return last.kept;
    const run = (last?.kept.run ?? 0) + 1;
    try {
      await retryTransient(() => lifecycle.create(this.runKey(team, String(run)), text));
    } catch (error) {
      // A create that timed out may have landed before its retry was refused: then it is this one.
      const landed = await retryTransient(() => lifecycle.get(this.runKey(team, String(run))));
      if (!landed || decoder.decode(landed.value) !== text) throw error;
    }
    return this.keptRun(team, run, current.value)!;
  }

  private runKey(team: RegistryEntry, run: string): string {
    return `run.${team.domainId}.${run}`;
  }

  private keptRun(team: RegistryEntry, run: number, value: Uint8Array): KeptRun | undefined {
    if (!Number.isInteger(run) || run < 1) return undefined;
    return {
      run,
      location: `${this.where} KV ${this.names.lifecycleBucket}/${this.runKey(team, String(run))}`,
      envelope: this.parse(team, value),
    };
  }

  /** The run kept last (runs are kept in order, so it is the last entry written under `run.<team>.*`): one lookup. */
  private async latestKeptRun(team: RegistryEntry): Promise<{ kept: KeptRun; text: string } | undefined> {
    const { session } = await this.streams();
    const bucket = this.names.lifecycleBucket;
    const message = await retryTransient(() =>
      session.jsm.streams.getMessage(`KV_${bucket}`, { last_by_subj: `$KV.${bucket}.${this.runKey(team, '*')}` }),
    );
    if (!message || message.data.length === 0) return undefined;
    const kept = this.keptRun(team, Number(message.subject.slice(message.subject.lastIndexOf('.') + 1)), message.data);
    return kept && { kept, text: decoder.decode(message.data) };
  }
}
