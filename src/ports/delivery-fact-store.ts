import type { DeliveryFactName, DeliveryFacts } from '../core/schema/delivery.js';
import type { TransportWriteOptions } from './signal-transport.js';

/**
 * The delivery fact store port: what happened to a signal after it was sent (src/core/schema/delivery.ts) —
 * the id claim made before it is published (`sent`), `read`, `answered`, `escalated`, `undeliverable`.
 * Every fact of a signal is recorded at most once and never rewritten: `record` keeps the first and says
 * whether this call was it, so concurrent writers (any process, any machine) agree on one without a lock.
 * Signal ids are UUIDs; a fact recorded under one spelling is found under any other (ids are compared in
 * lower case). The contract is stated once, as executable tests, in test/conformance/.
 */
export interface DeliveryFactStore {
  /** Where the facts are, to show to a person. */
  readonly location: string;
  /**
   * A send may claim an id it made itself while it publishes the signal, instead of first: a store across the
   * network saves a round trip per send so, a store on disk a wait for its flushes. Only a store that refuses
   * a `record` for no reason but a fact already there — or for one `checkRecord` finds first (the file store's
   * linked folder) — says so: an id nobody else knows has no fact yet, so such a claim can only fail with the
   * store.
   */
  readonly claimsAlongsidePublish?: boolean;
  /**
   * What a `record` would refuse for a reason the caller can fix, checked before a claim made alongside a
   * publish, so that a refused send publishes nothing (throws the refusal).
   */
  checkRecord?(options?: TransportWriteOptions): void;
  /** Record `fact` for signal `id` unless one is there (validated first); true when this call recorded it. */
  record<K extends DeliveryFactName>(
    id: string,
    fact: K,
    value: NonNullable<DeliveryFacts[K]>,
    options?: TransportWriteOptions,
  ): Promise<boolean>;
  /** One fact of a signal, if recorded; a stored fact that is not valid is reported (`FILE_CORRUPT`), never replaced. */
  get<K extends DeliveryFactName>(id: string, fact: K): Promise<DeliveryFacts[K] | undefined>;
  /** Whether a fact is recorded, without reading it (the monitor asks this for every live signal). */
  has(id: string, fact: DeliveryFactName): Promise<boolean>;
  /**
   * `has` for many signals at once (`fed signal list` asks for every signal it shows): for each of `ids`
   * that has any of `facts` recorded, its lower-case id with those facts; ids with none are left out.
   */
  recorded(ids: readonly string[], facts: readonly DeliveryFactName[]): Promise<Map<string, Set<DeliveryFactName>>>;
  /** Every fact recorded for a signal. */
  all(id: string): Promise<DeliveryFacts>;
}
