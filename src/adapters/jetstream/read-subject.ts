import type { ConsumerMessages, DeliverPolicy } from '@nats-io/jetstream';
import type { JetStreamSession } from './connect-jetstream.js';
import { retryTransient, TransientJetStreamError } from './transient.js';

/**
 * How often an idle read hears from its consumer's server; two missed in a row and the read starts
 * again on another consumer. The client's default (15 s) left a read stalled for 30 s at best.
 */
const IDLE_HEARTBEAT_MS = 2_000;

/** A stored message as the adapter needs it: where it is in the stream, its subject and its bytes. */
export interface StreamRecord {
  seq: number;
  subject: string;
  data: Uint8Array;
  /** When the server stored it: ms since the epoch with a fraction (the server's clock, to the microsecond). */
  storedAt: number;
  /** Message headers (first value of each), e.g. a quarantine reason. */
  headers: Record<string, string>;
}

/**
 * Every message of `stream` matching `filter` with a sequence above `afterSeq`, in stream order, up to
 * the last one stored when the call began. One direct lookup answers "nothing new" (the common case of
 * a poll); otherwise an ordered consumer streams them in batches — never one request per message.
 */
export async function readSubjectSince(
  session: JetStreamSession,
  stream: string,
  filter: string,
  afterSeq: number,
  /** Told the last sequence on `filter`: true when the caller already knows every message up to it (nothing is read). */
  known?: (lastSeq: number) => boolean,
): Promise<StreamRecord[]> {
  const last = await retryTransient(() => session.jsm.direct.getMessage(stream, { last_by_subj: filter }));
  if (!last || last.seq <= afterSeq || known?.(last.seq)) return [];
  const records: StreamRecord[] = [];
  // A retry goes on from the last record read: what was read stays read.
  return retryTransient(async () => {
    const consumer = await session.js.consumers.get(stream, {
      filter_subjects: filter,
      // DeliverPolicy.StartSequence, spelled out so this module needs no runtime import of the client.
      deliver_policy: 'by_start_sequence' as DeliverPolicy,
      opt_start_seq: (records.at(-1)?.seq ?? afterSeq) + 1,
    });
    // Bounded by bytes, not messages: a batch of signals up to 1 MiB each must not hold gigabytes.
    const messages = await consumer.consume({ max_bytes: 16 * 1024 * 1024, idle_heartbeat: IDLE_HEARTBEAT_MS });
    let caughtUp = false;
    void stopWhenHeartbeatsMissed(messages);
    try {
      for await (const message of messages) {
        const headers: Record<string, string> = {};
        for (const [key] of message.headers ?? []) headers[key] = message.headers!.get(key);
        records.push({ seq: message.seq, subject: message.subject, data: message.data, storedAt: message.info.timestampNanos / 1e6, headers });
        // pending 0: caught up, even if the last message seen by the lookup was removed meanwhile.
        if (message.seq >= last.seq || message.info.pending === 0) {
          caughtUp = true;
          break;
        }
      }
    } finally {
      messages.stop();
    }
    if (!caughtUp) throw new TransientJetStreamError(`the read of ${filter} in ${stream} stopped at sequence ${records.at(-1)?.seq ?? afterSeq} of ${last.seq}`);
    return records;
  });
}

/**
 * Two missed heartbeats mean the consumer's server is gone (a cluster node killed: measured, the client's
 * own recovery of an ordered consumer then waited forever). Stopping ends the read short, so it is made
 * again on a live node.
 */
async function stopWhenHeartbeatsMissed(messages: ConsumerMessages): Promise<void> {
  for await (const status of messages.status()) {
    if (status.type === 'heartbeats_missed') return void messages.stop();
  }
}
