import { CorruptFileError } from '../../core/errors.js';
import { toJsonText } from '../../core/json-text.js';
import type { DeliveryFactStore } from '../../ports/delivery-fact-store.js';
import { zodProblemText } from '../../core/schema/problems.js';
import {
  DELIVERY_FACTS,
  deliveryFactSchemas,
  type DeliveryFactName,
  type DeliveryFacts,
} from '../../core/schema/delivery.js';
import type { FederationStreams } from './federation-streams.js';
import { isWrongLastSequence } from './jetstream-errors.js';
import type { JetStreamNames } from './names.js';
import { retryTransient } from './transient.js';

/**
 * Delivery facts as entries of the KV bucket `fed_<name>_delivery`, key `<id>.<fact>` (the id in lower
 * case), the same JSON as the file adapter's `<id>.<fact>.json`. Recording is a KV create, which the
 * server refuses when the key exists: the first fact is kept on every machine, like an exclusive file
 * create. Durability is the server's (see Durability in docs/jetstream.md); `durable` is not needed.
 */
export class JetStreamDeliveryFactStore implements DeliveryFactStore {
  readonly location: string;
  /** A create refuses only an existing key: a fresh id's claim rides with its publish (one round trip per send). */
  readonly claimsAlongsidePublish = true;

  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    private readonly names: JetStreamNames,
    where: string,
  ) {
    this.location = `${where} KV ${names.deliveryBucket}`;
  }

  async record<K extends DeliveryFactName>(
    id: string,
    fact: K,
    value: NonNullable<DeliveryFacts[K]>,
  ): Promise<boolean> {
    const text = toJsonText(deliveryFactSchemas[fact].parse(value));
    const { delivery } = await this.streams();
    const key = factKey(id, fact);
    let retried = false;
    try {
      await retryTransient((attempt) => {
        retried = attempt > 1;
        return delivery.create(key, text);
      });
      return true;
    } catch (error) {
      // Anything but the server's "wrong last sequence" (the key holds a fact already) is a failure.
      if (!isWrongLastSequence(error)) throw error;
      // An attempt that timed out may have landed before its retry was refused: then the fact is ours.
      if (!retried) return false;
      const stored = await retryTransient(() => delivery.get(key));
      return stored !== null && new TextDecoder().decode(stored.value) === text;
    }
  }

  async get<K extends DeliveryFactName>(id: string, fact: K): Promise<DeliveryFacts[K] | undefined> {
    const { delivery } = await this.streams();
    const key = factKey(id, fact);
    const entry = await retryTransient(() => delivery.get(key));
    if (!entry || entry.operation !== 'PUT') return undefined;
    const where = `${this.location}/${key}`;
    let raw: unknown;
    try {
      raw = JSON.parse(new TextDecoder().decode(entry.value));
    } catch (error) {
      throw new CorruptFileError(where, `not valid JSON (${(error as Error).message})`);
    }
    const parsed = deliveryFactSchemas[fact].safeParse(raw);
    if (!parsed.success) throw new CorruptFileError(where, zodProblemText(parsed.error));
    return parsed.data as DeliveryFacts[K];
  }

  async has(id: string, fact: DeliveryFactName): Promise<boolean> {
    const { delivery } = await this.streams();
    const entry = await retryTransient(() => delivery.get(factKey(id, fact)));
    return entry !== null && entry.operation === 'PUT';
  }

  /** The lookups of one signal at once, the signals one after another: as many requests in flight as `has` of one signal makes. */
  async recorded(
    ids: readonly string[],
    facts: readonly DeliveryFactName[],
  ): Promise<Map<string, Set<DeliveryFactName>>> {
    const found = new Map<string, Set<DeliveryFactName>>();
    for (const id of ids) {
      const present = await Promise.all(facts.map((fact) => this.has(id, fact)));
      const set = new Set(facts.filter((_, index) => present[index]));
      if (set.size > 0) found.set(id.toLowerCase(), set);
    }
    return found;
  }

  async all(id: string): Promise<DeliveryFacts> {
    const values = await Promise.all(DELIVERY_FACTS.map((fact) => this.get(id, fact)));
    const facts: DeliveryFacts = {};
    DELIVERY_FACTS.forEach((fact, index) => {
      if (values[index] !== undefined) (facts as Record<string, unknown>)[fact] = values[index];
    });
    return facts;
  }
}

/** `<id>.<fact>`: KV keys allow letters, digits, `-` and `.`, which is all a UUID and a fact name hold. */
const factKey = (id: string, fact: DeliveryFactName): string => `${id.toLowerCase()}.${fact}`;
