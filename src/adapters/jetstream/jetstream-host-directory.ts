import type { KV, KvEntry, KvWatchInclude } from '@nats-io/kv';
import { CorruptFileError } from '../../core/errors.js';
import { toJsonText } from '../../core/json-text.js';
import { hostRecordSchema, type HostRecord } from '../../core/schema/host.js';
import { zodProblemText } from '../../core/schema/problems.js';
import type { ChangeWatch } from '../../ports/federation-changes.js';
import type { HeardHost, HostDirectory } from '../../ports/host-directory.js';
import { bucketKeys } from './bucket-keys.js';
import type { FederationStreams } from './federation-streams.js';
import type { JetStreamNames } from './names.js';
import { retryTransient } from './transient.js';

/**
 * The hosts as KV bucket `fed_<name>_hosts`, one entry per host name. A renewal is a put, so the entry's
 * `created` — the NATS server's time of the last write — is when the host was last heard from.
 */
export class JetStreamHostDirectory implements HostDirectory {
  readonly location: string;

  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    private readonly names: JetStreamNames,
    where: string,
  ) {
    this.location = `${where} KV ${names.hostBucket}`;
  }

  async put(record: HostRecord): Promise<void> {
    const { hosts } = await this.streams();
    await retryTransient(() => hosts.put(record.name, toJsonText(record)));
  }

  async get(name: string): Promise<HeardHost | undefined> {
    const { hosts } = await this.streams();
    return this.heard(await retryTransient(() => hosts.get(name)));
  }

  async list(): Promise<HeardHost[]> {
    const { hosts, session } = await this.streams();
    const names = await bucketKeys(session, this.names.hostBucket);
    const heard = await Promise.all(names.sort().map(async (name) => this.heard(await readEntry(hosts, name))));
    return heard.filter((host): host is HeardHost => host !== undefined);
  }

  /** A watch of the bucket's updates only (an ordered consumer the client re-creates after a reconnect). */
  watch(listener: (host: HeardHost) => void, onError?: (error: Error) => void): ChangeWatch {
    let stop: (() => void) | undefined;
    let closed = false;
    const ready = (async () => {
      const { hosts } = await this.streams();
      if (closed) return;
      // KvWatchInclude.UpdatesOnly, without loading the client with this module.
      const updates = await retryTransient(() => hosts.watch({ include: 'updates' as KvWatchInclude }));
      stop = () => updates.stop();
      if (closed) return stop();
      void (async () => {
        for await (const entry of updates) {
          let host: HeardHost | undefined;
          try {
            host = this.heard(entry);
          } catch {
            continue;
          }
          if (host && !closed) listener(host);
        }
        // The client ends the updates only when their subscription closed (the connection closed for good):
        // said, or the hosts' changes would stop with nothing to tell why.
        if (!closed) throw new Error(`the watch of ${this.location} ended: no host change is heard from now on`);
      })().catch((error: unknown) => !closed && onError?.(error as Error));
    })();
    ready.catch((error: unknown) => onError?.(error as Error));
    return {
      ready,
      close: async () => {
        closed = true;
        stop?.();
        await ready.catch(() => undefined);
      },
    };
  }

  private heard(entry: KvEntry | null): HeardHost | undefined {
    if (!entry || entry.operation !== 'PUT') return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(new TextDecoder().decode(entry.value));
    } catch (error) {
      throw new CorruptFileError(`${this.location}/${entry.key}`, `not valid JSON (${(error as Error).message})`);
    }
    const parsed = hostRecordSchema.safeParse(raw);
    if (!parsed.success) throw new CorruptFileError(`${this.location}/${entry.key}`, zodProblemText(parsed.error));
    return { record: parsed.data, heardAt: entry.created };
  }
}

const readEntry = (hosts: KV, name: string) => retryTransient(() => hosts.get(name));
