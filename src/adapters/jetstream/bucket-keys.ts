import type { JetStreamSession } from './connect-jetstream.js';
import { retryTransient } from './transient.js';

/**
 * The keys KV bucket `bucket` holds under `filter` (a subject pattern of keys: `>`, `team.*`), read with one
 * stream-info request listing the bucket stream's subjects. A deleted key is listed too (its marker is the
 * subject's last message): callers read each entry and skip what is not a PUT, as they would anyway.
 *
 * Not the client's `kv.keys()`: it lists through an ordered consumer that stops at the message it sees
 * with nothing pending, and a key written while it lists (a host's heartbeat, a team file being copied)
 * can leave it waiting forever — measured on nats-server 2.9 with @nats-io/kv 3.3: 4 of 16 761 listings
 * never ended with one key put every 500 ms, a third of them with puts back to back.
 */
export async function bucketKeys(session: JetStreamSession, bucket: string, filter = '>'): Promise<string[]> {
  const prefix = `$KV.${bucket}.`;
  const info = await retryTransient(() =>
    session.jsm.streams.info(`KV_${bucket}`, { subjects_filter: `${prefix}${filter}` }),
  );
  return Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
}
