import { DiscardPolicy, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { nanos } from '@nats-io/transport-node';
import type { JetStreamSession } from './connect-jetstream.js';
import { isStreamNameInUse, isStreamNotFound } from './jetstream-errors.js';
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
}

function streamConfig(
  session: JetStreamSession,
  name: string,
  subjects: string[],
  duplicateWindowMs?: number,
): Partial<StreamConfig> & { name: string } {
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

/** Add the stream, or leave it be when it exists (a federation joined by another machine). */
async function ensureStream(
  session: JetStreamSession,
  config: Partial<StreamConfig> & { name: string },
): Promise<void> {
  await retryTransient(async () => {
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
  const bucket = (name: string) =>
    retryTransient(() => kvm.create(name, { history: 1, replicas: session.replicas, storage: StorageType.File }));
  return {
    session,
    acks: await bucket(names.ackBucket),
    delivery: await bucket(names.deliveryBucket),
    registry: await bucket(names.registryBucket),
    lifecycle: await bucket(names.lifecycleBucket),
  };
}
