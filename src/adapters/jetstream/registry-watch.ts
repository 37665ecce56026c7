import type { PubHeaders } from '@nats-io/jetstream';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import type { Registry } from '../../core/schema/registry.js';
import type { FederationStreams } from './federation-streams.js';

/** A registry as the store read and validated it: its KV revision and the exact text stored. */
export interface StoredRegistry {
  registry: Registry;
  revision: number;
  text: string;
}

/**
 * The header a compare-and-swap write carries (the client's PubHeaders, spelt out: every command reads
 * this module through the registry store, and the NATS client must load only when it is used).
 */
const EXPECTED_LAST_SUBJECT_SEQUENCE: (typeof PubHeaders)['ExpectedLastSubjectSequenceHdr'] =
  'Nats-Expected-Last-Subject-Sequence';

/** Connection events that lose nothing: a ping, a change of the cluster's server list. */
const HARMLESS = new Set(['ping', 'update']);

/** Writes without a compare-and-swap (not fed's) remembered by their text; beyond this many the watch gives up. */
const MAX_BLIND_WRITES = 16;

/**
 * How long a read vouches for the copy at most. The subscription can miss a write in ways no event on
 * this connection tells of — a replica behind answering the read (the registry bucket allows direct
 * gets), a route between two servers cut while this connection stays up, a subscription not yet spread
 * through the cluster — so whatever is missed is read again within this bound.
 */
export const REGISTRY_COPY_MAX_AGE_MS = 2_000;

/**
 * The registry copy of a long-running process on JetStream (docs/jetstream.md "The watched registry").
 * The copy is only ever a registry this process read (and validated), with its KV revision; what keeps it
 * honest is a plain NATS subscription on the registry's KV subject, which hears every write attempt —
 * stored or refused, made by any process on any server — as the server receives it, without a consumer
 * on the server that could vanish unnoticed. A heard write stops the copy being vouched for until a read
 * shows a revision it can no longer land after: a compare-and-swap expecting revision E lands as the
 * revision right after E or never, so any revision above E settles it. A write without one (no fed
 * writer makes them) is settled when a read returns its exact text. A disconnect loses what was said
 * meanwhile: a copy read before the connection came back is not vouched for.
 */
export class JetStreamRegistryWatch {
  private copy: (StoredRegistry & { epoch: number; readAt: number }) | undefined;
  /** Bumped by the subscription starting and by every connection event that may have lost a message. */
  private epochCount = 0;
  private live = false;
  /** The copy must be above this revision: the highest revision a heard compare-and-swap expected. */
  private expectedAbove = -1;
  /** Heard writes without a compare-and-swap, by their text, until a read returns them. */
  private readonly blindWrites = new Set<string>();
  private gaveUp = false;
  private listening: Promise<void> | undefined;

  /** `subject`: the registry's KV subject, $KV.<bucket>.registry. */
  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    private readonly subject: string,
  ) {
    this.listen();
  }

  /**
   * Listen, unless it does already. Until the subscription is made the copy is vouched for by nothing and
   * every caller reads; a connection that failed is the operation's to report, and the next read tries again.
   */
  listen(): void {
    this.listening ??= this.streams().then(
      ({ session }) => this.subscribe(session.nc),
      () => {
        this.listening = undefined;
      },
    );
  }

  private async subscribe(nc: NatsConnection): Promise<void> {
    try {
      nc.subscribe(this.subject, { callback: (error, message) => (error ? this.giveUp() : this.heard(message)) });
      void this.followConnection(nc);
      // Only a read that begins once the server has the subscription (the flush's answer) is vouched
      // for: a write that read does not show is one the subscription tells of (on a cluster, give or
      // take the milliseconds its routes take to spread it — the copy's age bound covers those).
      await nc.flush();
    } catch {
      // A connection the client closed itself (e.g. after repeated auth errors): the next read listens again.
      this.listening = undefined;
      return;
    }
    this.live = true;
    this.epochCount++;
    // The backend closed its connection: a later operation opens another, and the next read listens on it.
    void nc.closed().then(() => {
      this.live = false;
      this.epochCount++;
      this.listening = undefined;
    });
  }

  /** Taken by a read when it begins and handed to `observe` with what it read: a read across a reconnect is not trusted. */
  get epoch(): number {
    return this.epochCount;
  }

  current(now = Date.now()): Registry | undefined {
    const copy = this.copy;
    if (!this.live || this.gaveUp || copy === undefined || copy.epoch !== this.epochCount) return undefined;
    if (copy.revision <= this.expectedAbove || this.blindWrites.size > 0) return undefined;
    if (now - copy.readAt > REGISTRY_COPY_MAX_AGE_MS) return undefined;
    return copy.registry;
  }

  /**
   * A registry read by an operation that began at `epoch`, at time `readAt` (its own writes too are
   * settled by a read).
   */
  observe(stored: StoredRegistry, epoch: number, readAt: number): void {
    this.blindWrites.delete(stored.text);
    if (!this.live || epoch !== this.epochCount) return;
    const copy = this.copy;
    if (copy !== undefined && copy.epoch === epoch && copy.revision >= stored.revision) {
      // The same revision read again vouches for the copy anew; an older one (a replica behind) does not.
      if (copy.revision === stored.revision) copy.readAt = Math.max(copy.readAt, readAt);
      return;
    }
    // The caller keeps its own registry to change; the copy is shared by every later caller, so frozen.
    this.copy = { ...stored, registry: frozen(structuredClone(stored.registry)), epoch, readAt };
  }

  private heard(message: Msg): void {
    const expected = message.headers?.get(EXPECTED_LAST_SUBJECT_SEQUENCE);
    if (expected !== undefined && expected !== '' && /^\d+$/.test(expected)) {
      this.expectedAbove = Math.max(this.expectedAbove, Number(expected));
      return;
    }
    if (this.blindWrites.size >= MAX_BLIND_WRITES) return this.giveUp();
    this.blindWrites.add(message.string());
  }

  private async followConnection(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (HARMLESS.has(status.type)) continue;
      this.epochCount++;
      if (status.type === 'disconnect') this.live = false;
      if (status.type === 'reconnect') this.live = true;
    }
  }

  /** The subscription failed (e.g. not permitted): from now on every caller reads. */
  private giveUp(): void {
    this.gaveUp = true;
    this.copy = undefined;
  }
}

function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}
