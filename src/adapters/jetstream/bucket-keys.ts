import type { JetStreamSession } from './connect-jetstream.js';
import { retryTransient } from './transient.js';

/**
 * The subjects `stream` holds messages on under `filter`, read with one stream-info request (the client
 * pages a long list itself). What a KV bucket or an object store lists is read this way, never through
 * the client's own listings — `kv.keys()`, `objectStore.list()` — which read an ordered consumer until it
 * says nothing is pending: with a key written while it lists (a host's heartbeat, a team file or a
 * transcript being copied) `kv.keys()` can wait forever, measured on nats-server 2.9 with @nats-io/kv 3.3:
 * 4 of 16 761 listings never ended with one key put every 500 ms, a third of them with puts back to back.
 */
async function streamSubjects(session: JetStreamSession, stream: string, filter: string): Promise<string[]> {
  const info = await retryTransient(() => session.jsm.streams.info(stream, { subjects_filter: filter }));
  return Object.keys(info.state.subjects ?? {});
}

/**
 * The keys KV bucket `bucket` holds under `filter` (a subject pattern of keys: `>`, `team.*`). A deleted
 * key is listed too (its marker is the subject's last message): callers read each entry and skip what is
 * not a PUT, as they would anyway.
 */
export async function bucketKeys(session: JetStreamSession, bucket: string, filter = '>'): Promise<string[]> {
  const prefix = `$KV.${bucket}.`;
  return (await streamSubjects(session, `KV_${bucket}`, `${prefix}${filter}`)).map((subject) =>
    subject.slice(prefix.length),
  );
}

/**
 * The names of the objects object store `bucket` describes (each description's subject names its object in
 * base64url). A deleted object is listed too (its description says so): callers look at each.
 */
export async function objectNames(session: JetStreamSession, bucket: string): Promise<string[]> {
  const prefix = `$O.${bucket}.M.`;
  return (await streamSubjects(session, `OBJ_${bucket}`, `${prefix}>`)).map((subject) =>
    Buffer.from(subject.slice(prefix.length), 'base64url').toString('utf8'),
  );
}
