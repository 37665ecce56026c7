import { DiscardPolicy, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { nanos } from '@nats-io/transport-node';
import { BackendUnavailableError } from '../../core/errors.js';
import type { JetStreamSession } from './connect-jetstream.js';
import { isStreamNameInUse, isStreamNotFound, isStreamSubjectOverlap } from './jetstream-errors.js';
import { explainReplicasRefusal } from './replicas-refusal.js';
import { retryTransient } from './transient.js';

/**
 * A retried send (`fed signal send --id`) is deduplicated by the server within this window: a day, far
 * longer than any retry loop, at the cost of one remembered id per signal of the last day.
 */
export const SIGNAL_DEDUPE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The federation's streams and buckets, created if missing (idempotent: the same config is a no-op). */
export interface FederationStreams {
  session: JetStreamSession;
  acks: KV;
  delivery: KV;
  registry: KV;
  lifecycle: KV;
  hosts: KV;
  teamFiles: KV;
  transcripts: ObjectStore;
}

function streamConfig(
  session: JetStreamSession,
  name: string,
  subjects: string[],
  duplicateWindowMs?: number,
): Partial<StreamConfig> & { name: string; subjects: string[] } {
  return {
    name,
    subjects,
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    // Nothing is ever dropped to make room: a full store refuses new messages instead.
    discard: DiscardPolicy.New,
    num_replicas: session.replicas,
    allow_direct: true,
    ...(duplicateWindowMs !== undefined && { duplicate_window: nanos(duplicateWindowMs) }),
  };
}

/** How long a find-or-create refused as overlapping is tried again: a racing identical add is done well within it. */
const CREATE_RACE_MS = 2_000;

/**
 * Run an idempotent find-or-create of one stream or bucket. Two processes that open a new federation at
 * once (two `fed init`s on one server) race, and the server may refuse the later add as overlapping the
 * subjects of the very stream being created; looking again then finds it. A refusal that outlasts the
 * race (2 s from the first) is another stream on the server holding these subjects — unless the server
 * says the holder is this very stream, created slowly (a busy cluster): a clear error naming the holder.
 * A single server asked for more copies than one refuses the add: an error naming backend.replicas.
 */
async function findOrCreate<T>(
  session: JetStreamSession,
  stream: { name: string; subject: string },
  op: () => Promise<T>,
): Promise<T> {
  let raceEnds: number | undefined;
  const racing = (error: unknown) =>
    isStreamSubjectOverlap(error) && Date.now() < (raceEnds ??= Date.now() + CREATE_RACE_MS);
  try {
    return await retryTransient(op, undefined, racing);
  } catch (error) {
    if (!isStreamSubjectOverlap(error)) throw explainReplicasRefusal(session, error);
    const holder = await retryTransient(() => session.jsm.streams.find(stream.subject)).catch(() => undefined);
    if (holder === stream.name)
      return retryTransient(op).catch((again: unknown) => {
        throw explainReplicasRefusal(session, again);
      });
    throw new BackendUnavailableError(
      session.servers,
      `the NATS server at ${session.servers.join(', ')} has ${holder ? `stream ${holder}` : 'another stream'} on ${stream.subject}, which federation ${session.names.federation}'s stream ${stream.name} needs; remove that stream (nats stream rm) or give this federation another federationName in federate.config.json`,
      error,
    );
  }
}

/** Add the stream, or leave it be when it exists (a federation joined by another machine). */
async function ensureStream(
  session: JetStreamSession,
  config: Partial<StreamConfig> & { name: string; subjects: string[] },
): Promise<void> {
  await findOrCreate(session, { name: config.name, subject: config.subjects[0]! }, async () => {
    try {
      await session.jsm.streams.info(config.name);
    } catch (error) {
      // The server's "stream not found" (10059): create it.
      if (!isStreamNotFound(error)) throw error;
      try {
        await session.jsm.streams.add(config);
      } catch (addError) {
        // Another machine created it meanwhile, with a configuration of its own: the server's "stream name
        // already in use" (10058). One identical to ours the server accepts as created.
        if (!isStreamNameInUse(addError)) throw addError;
      }
    }
  });
}

export async function ensureFederationStreams(session: JetStreamSession): Promise<FederationStreams> {
  const { names } = session;
  await ensureStream(
    session,
    streamConfig(session, names.signalStream, [`fed.${names.federation}.inbox.>`], SIGNAL_DEDUPE_WINDOW_MS),
  );
  await ensureStream(session, streamConfig(session, names.journalStream, [`fed.${names.federation}.journal.>`]));
  await ensureStream(session, streamConfig(session, names.quarantineStream, [`fed.${names.federation}.quarantine.>`]));
  const kvm = new Kvm(session.js);
  // A bucket is the stream KV_<name> on the subjects $KV.<name>.> (the client's naming).
  const bucket = (name: string) =>
    findOrCreate(session, { name: `KV_${name}`, subject: `$KV.${name}.>` }, () =>
      kvm.create(name, { history: 1, replicas: session.replicas, storage: StorageType.File }),
    );
  return {
    session,
    acks: await bucket(names.ackBucket),
    delivery: await bucket(names.deliveryBucket),
    registry: await bucket(names.registryBucket),
    lifecycle: await bucket(names.lifecycleBucket),
    hosts: await bucket(names.hostBucket),
    teamFiles: await bucket(names.teamFileBucket),
    // An object store is the stream OBJ_<name> on $O.<name>.C.> (chunks) and $O.<name>.M.> (descriptions).
    transcripts: await findOrCreate(
      session,
      { name: `OBJ_${names.transcriptBucket}`, subject: `$O.${names.transcriptBucket}.C.>` },
      () =>
        new Objm(session.js).create(names.transcriptBucket, { replicas: session.replicas, storage: StorageType.File }),
    ),
  };
}
