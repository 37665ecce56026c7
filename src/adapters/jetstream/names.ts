import { InvalidInputError } from '../../core/errors.js';

/**
 * Where one federation lives in JetStream. Every name is derived from the federation's name, so several
 * federations share a server without meeting, and a machine that knows the name and the URL finds it all:
 *
 * - signals: stream `FED_<name>_SIGNALS`, one subject per inbox, `fed.<name>.inbox.<to>.<from>` — the
 *   recipient's inbox is `…inbox.<to>.*`, the sender's outbox is `…inbox.*.<from>` (one stored copy);
 * - acknowledgments: KV bucket `fed_<name>_acks`, key `<team>.<signal id>`;
 * - delivery facts: KV bucket `fed_<name>_delivery`, key `<signal id>.<fact>`; beside them `<signal id>.seq`,
 *   the stream sequence of the signal's inbox copy (a hint for finding it by id, checked on use);
 * - registry: KV bucket `fed_<name>_registry`, key `registry`;
 * - lifecycles: KV bucket `fed_<name>_lifecycle`, key `<team>` (and `lock.<team>` for the writer's lease);
 * - journals: stream `FED_<name>_JOURNAL`, one subject per line, `fed.<name>.journal.<team>.<seq>` (a line
 *   is found by its seq in one lookup, the last one by the wildcard); the federation journal in the same
 *   stream as `fed.<name>.journal.federation` (one token shorter than any team's line, so never matched by one);
 * - quarantine: stream `FED_<name>_QUARANTINE`, subject `fed.<name>.quarantine.<team>`;
 * - hosts: KV bucket `fed_<name>_hosts`, key `<host name>` (the machines `fed serve` runs on);
 * - team files: KV bucket `fed_<name>_files`, key `<team>.<file>` (a copy of a team's deliverable, learning
 *   log and run records, for a team moved to another host);
 * - transcripts: object store `fed_<name>_transcripts`, object `<team>/<file>` (a copy of each run's transcript
 *   and prompt, `<runId>.jsonl|.log` and `<runId>.prompt.md`, read where a moved team's run is looked back at);
 * - unplaced teams' pending work: stream `FED_<name>_WORK` (work-queue retention), subject
 *   `fed.<name>.work.<team>`, message id `<team>:<work key>`, taken through the durable consumer `serve`.
 */
export interface JetStreamNames {
  federation: string;
  signalStream: string;
  journalStream: string;
  quarantineStream: string;
  ackBucket: string;
  deliveryBucket: string;
  registryBucket: string;
  lifecycleBucket: string;
  hostBucket: string;
  teamFileBucket: string;
  transcriptBucket: string;
  workStream: string;
  inboxSubject(to: string, from: string): string;
  /** The subject that stores, in the delivery bucket, where signal `id`'s inbox copy is. */
  seqHintSubject(id: string): string;
  seqHintKey(id: string): string;
  inboxFilter(to: string): string;
  outboxFilter(from: string): string;
  journalSubject(team: string, seq: number): string;
  journalFilter(team: string): string;
  quarantineSubject(team: string): string;
  federationJournalSubject: string;
}

/** Stream and bucket names allow letters, digits, `-` and `_`; subjects split on `.`, so the name is one token. */
export const FEDERATION_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export function jetstreamNames(federation: string | undefined): JetStreamNames {
  if (federation === undefined) {
    throw new InvalidInputError(
      "the JetStream backend needs the federation's name (federationName in federate.config.json): it names the streams and buckets every machine shares; " +
        'set it there (a new federation can be made with it: fed init --name <federationName>)',
    );
  }
  if (!FEDERATION_NAME_PATTERN.test(federation)) {
    throw new InvalidInputError(
      `federationName "${federation}" cannot name JetStream streams: with the JetStream backend it must be 1 to 64 letters, digits, "-" or "_"`,
    );
  }
  const prefix = `fed.${federation}`;
  const deliveryBucket = `fed_${federation}_delivery`;
  return {
    federation,
    signalStream: `FED_${federation}_SIGNALS`,
    journalStream: `FED_${federation}_JOURNAL`,
    quarantineStream: `FED_${federation}_QUARANTINE`,
    ackBucket: `fed_${federation}_acks`,
    deliveryBucket,
    registryBucket: `fed_${federation}_registry`,
    lifecycleBucket: `fed_${federation}_lifecycle`,
    hostBucket: `fed_${federation}_hosts`,
    teamFileBucket: `fed_${federation}_files`,
    transcriptBucket: `fed_${federation}_transcripts`,
    workStream: `FED_${federation}_WORK`,
    inboxSubject: (to, from) => `${prefix}.inbox.${to}.${from}`,
    seqHintSubject: (id) => `$KV.${deliveryBucket}.${id.toLowerCase()}.seq`,
    seqHintKey: (id) => `${id.toLowerCase()}.seq`,
    inboxFilter: (to) => `${prefix}.inbox.${to}.*`,
    outboxFilter: (from) => `${prefix}.inbox.*.${from}`,
    journalSubject: (team, seq) => `${prefix}.journal.${team}.${seq}`,
    journalFilter: (team) => `${prefix}.journal.${team}.*`,
    federationJournalSubject: `${prefix}.journal.federation`,
    quarantineSubject: (team) => `${prefix}.quarantine.${team}`,
  };
}
