import { toJsonText } from '../../core/json-text.js';
import type { FederationJournal } from '../../ports/federation-journal.js';
import { federationRecordSchema, type FederationRecord } from '../../core/schema/federation-journal.js';
import { countedJsonRecords } from '../../core/schema/json-lines.js';
import { sha256 } from '../../infra/crypto/sha256.js';
import type { FederationStreams } from './federation-streams.js';
import type { JetStreamNames } from './names.js';
import { readSubjectSince } from './read-subject.js';
import { retryTransient } from './transient.js';

const decoder = new TextDecoder();

/**
 * The federation journal in JetStream: one message per record on `fed.<name>.journal.federation` of the
 * journal stream, so every machine appends to and reads the same journal.
 */
export class JetStreamFederationJournal implements FederationJournal {
  readonly location: string;

  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    private readonly names: JetStreamNames,
    where: string,
  ) {
    this.location = `${where} stream ${names.journalStream} subject ${names.federationJournalSubject}`;
  }

  async append(record: FederationRecord): Promise<void> {
    const { session } = await this.streams();
    const text = toJsonText(federationRecordSchema.parse(record));
    // A message id makes a publish repeated after a lost reply land once; records carry their own time, so
    // two records with the same content are the same record.
    const msgID = sha256(text).toString('hex');
    await retryTransient(() => session.js.publish(this.names.federationJournalSubject, text, { msgID }));
  }

  async read(): Promise<FederationRecord[]> {
    return (await this.readCounted()).records;
  }

  async readCounted(): ReturnType<FederationJournal['readCounted']> {
    const { session } = await this.streams();
    const records = await readSubjectSince(session, this.names.journalStream, this.names.federationJournalSubject, 0);
    return countedJsonRecords(
      records.map((record) => decoder.decode(record.data)),
      federationRecordSchema,
    );
  }
}
