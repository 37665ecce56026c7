import type { Subscription } from '@nats-io/transport-node';
import { DEFAULT_FEDERATION_REPORT } from '../../core/schema/config.js';
import { CoalesceByKey } from '../../infra/watch/coalesce-by-key.js';
import { SharedDirectoryWatchers } from '../../infra/watch/shared-directory-watchers.js';
import { watchFederationFiles } from '../../infra/watch/watch-federation-files.js';
import type { ChangeWatch, FederationChange, FederationChanges } from '../../ports/federation-changes.js';
import type { FederationStreams } from './federation-streams.js';
import type { JetStreamNames } from './names.js';

/** How long a burst of one change is gathered before it is told (a send is a message and its facts). */
const COALESCE_MS = 25;

/** meta's party name in subjects and keys: its boxes are `meta`'s, not a team's. */
const META = 'meta';

/**
 * The change feed on JetStream. Every publish to a stream — a KV put included, on `$KV.<bucket>.<key>` —
 * also reaches plain NATS subscriptions on its subject: six wildcard subscriptions hear every change of
 * the federation from now on, with no consumer on the server and no history replayed. What a reconnect
 * may have lost is told as `{ scope: 'all' }`, so a reader reads everything again.
 */
export class JetStreamFederationChanges implements FederationChanges {
  /** `root`, `federationReport`: where the federation's own files are (watchFederationFiles). */
  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    private readonly names: JetStreamNames,
    private readonly root: string,
    private readonly federationReport = DEFAULT_FEDERATION_REPORT,
  ) {}

  watch(listener: (change: FederationChange) => void, onError?: (error: Error) => void): ChangeWatch {
    const watch = new JetStreamChangeWatch(this.streams, this.names, listener, onError);
    watch.watchFiles(this.root, this.federationReport);
    return watch;
  }
}

class JetStreamChangeWatch implements ChangeWatch {
  readonly ready: Promise<void>;
  private readonly coalesce: CoalesceByKey<FederationChange>;
  private readonly subscriptions: Subscription[] = [];
  private stopStatus: (() => void) | undefined;
  private stopFiles: (() => void) | undefined;
  private closed = false;

  constructor(
    streams: () => Promise<FederationStreams>,
    private readonly names: JetStreamNames,
    listener: (change: FederationChange) => void,
    private readonly onError: ((error: Error) => void) | undefined,
  ) {
    this.coalesce = new CoalesceByKey(COALESCE_MS, (change) => {
      if (!this.closed) listener(change);
    });
    // A watch that could not start is not ready: `ready` rejects (and onError hears it), so a server does
    // not serve a page that never updates. Handled here too, for a caller that never awaits `ready`.
    this.ready = this.start(streams).catch((error: unknown) => {
      this.fail(error as Error);
      throw error;
    });
    this.ready.catch(() => undefined);
  }

  /** The plan, the federation report and the collector's state are files at the root on JetStream too. */
  watchFiles(root: string, federationReport: string): void {
    this.stopFiles = watchFederationFiles(new SharedDirectoryWatchers(), root, federationReport, {
      onChange: () => !this.closed && this.tell({ scope: 'federation' }),
      onError: (error) => queueMicrotask(() => this.fail(error)),
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.coalesce.clear();
    this.stopFiles?.();
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
    this.stopStatus?.();
    await this.ready.catch(() => undefined);
  }

  private async start(streams: () => Promise<FederationStreams>): Promise<void> {
    const { session } = await streams();
    if (this.closed) return;
    const { nc } = session;
    const prefix = `fed.${this.names.federation}`;
    const kv = (bucket: string) => `$KV.${bucket}`;
    const routes: Array<[filter: string, route: (tokens: string[]) => void]> = [
      [`${prefix}.inbox.>`, ([to, from]) => this.boxes(to, from)],
      // `journal.federation` is the federation journal; `journal.<team>.<seq>` a line of a team's lifecycle journal.
      [
        `${prefix}.journal.>`,
        ([team, seq]) => (seq === undefined ? this.tell({ scope: 'journal' }) : this.team(team, 'lifecycle')),
      ],
      [`${kv(this.names.registryBucket)}.>`, () => this.tell({ scope: 'registry' })],
      // `lock.<team>` is the lifecycle writer's lease, not the lifecycle.
      [`${kv(this.names.lifecycleBucket)}.>`, ([team, more]) => more === undefined && this.team(team, 'lifecycle')],
      // An acknowledgment (`<team>.<signal id>`) changes the team's inbox.
      [`${kv(this.names.ackBucket)}.>`, ([team]) => this.inbox(team)],
      // `<id>.seq` is where a signal's inbox copy is, written with the signal: not a delivery fact.
      [`${kv(this.names.deliveryBucket)}.>`, ([, fact]) => fact !== 'seq' && this.tell({ scope: 'delivery' })],
    ];
    for (const [filter, route] of routes) {
      const skip = filter.length - 1;
      this.subscriptions.push(
        nc.subscribe(filter, {
          callback: (error, message) => {
            if (error) return this.fail(error);
            if (!this.closed) route(message.subject.slice(skip).split('.'));
          },
        }),
      );
    }
    this.watchConnection(nc);
    // The subscriptions are live on the server once this returns: a change made after `ready` is heard.
    await nc.flush();
  }

  private watchConnection(nc: FederationStreams['session']['nc']): void {
    const status = nc.status() as AsyncIterable<{ type: string }> & { stop(): void };
    this.stopStatus = () => status.stop();
    void (async () => {
      for await (const event of status) {
        if (event.type !== 'reconnect' || this.closed) continue;
        // Lifecycles and boxes changed while disconnected are not known either: everything is read again.
        this.tell({ scope: 'all' });
      }
    })();
    void nc.closed().then((error) => {
      if (!this.closed) this.fail(error ?? new Error('the JetStream connection closed: the change feed ended'));
    });
  }

  private boxes(to: string | undefined, from: string | undefined): void {
    this.inbox(to);
    if (from === META) this.tell({ scope: 'meta', what: 'outbox' });
    else if (from !== undefined) this.team(from, 'outbox');
  }

  private inbox(party: string | undefined): void {
    if (party === META) this.tell({ scope: 'meta', what: 'inbox' });
    else if (party !== undefined) this.team(party, 'inbox');
  }

  private team(team: string | undefined, what: Extract<FederationChange, { scope: 'team' }>['what']): void {
    if (team !== undefined) this.tell({ scope: 'team', team, what });
  }

  private tell(change: FederationChange): void {
    this.coalesce.push(JSON.stringify(change), change);
  }

  private fail(error: Error): void {
    if (this.closed) return;
    void this.close();
    this.onError?.(error);
  }
}
