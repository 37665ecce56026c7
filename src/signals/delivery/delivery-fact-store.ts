import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { createFileExclusive, type WriteOptions } from '../../fs/atomic-write.js';
import { ensureDirectory } from '../../fs/ensure-directory.js';
import { toJsonText } from '../../fs/json-text.js';
import { readJsonFile } from '../../fs/read-json-file.js';
import { FED_DIR } from '../../layout.js';
import {
  DELIVERY_DIR,
  DELIVERY_FACTS,
  deliveryFactSchemas,
  type DeliveryFactName,
  type DeliveryFacts,
} from '../../schema/delivery.js';

/**
 * The storage of delivery facts (src/schema/delivery.ts), behind a small read/record API so another
 * transport can keep them elsewhere. Every fact is recorded at most once: `record` keeps the first and
 * says whether this call was it.
 */
export interface DeliveryFactStore {
  /** Record `fact` for signal `id` unless one is there; true when this call recorded it. */
  record<K extends DeliveryFactName>(id: string, fact: K, value: NonNullable<DeliveryFacts[K]>): boolean;
  /** One fact of a signal, if recorded. */
  get<K extends DeliveryFactName>(id: string, fact: K): DeliveryFacts[K] | undefined;
  /** Whether a fact is recorded, without reading it (the monitor asks this for every live signal). */
  has(id: string, fact: DeliveryFactName): boolean;
  /** Every fact of a signal. */
  all(id: string): DeliveryFacts;
}

export function deliveryDirectory(root: string): string {
  return join(root, FED_DIR, DELIVERY_DIR);
}

/**
 * `<root>/.fed/delivery/<id>.<fact>.json`, each created exclusively through src/fs (complete or absent,
 * never replaced). Ids are UUIDs validated by the signal schema before they get here, so they cannot name
 * another directory.
 */
export class FileDeliveryFactStore implements DeliveryFactStore {
  readonly dir: string;
  private readonly writeOptions: WriteOptions;
  private ensured = false;

  constructor(root: string, options: WriteOptions = {}) {
    this.dir = deliveryDirectory(root);
    this.writeOptions = { durable: options.durable ?? true };
  }

  record<K extends DeliveryFactName>(id: string, fact: K, value: NonNullable<DeliveryFacts[K]>): boolean {
    const text = toJsonText(deliveryFactSchemas[fact].parse(value));
    if (!this.ensured) {
      ensureDirectory(this.dir, this.writeOptions);
      this.ensured = true;
    }
    return createFileExclusive(this.path(id, fact), text, this.writeOptions);
  }

  get<K extends DeliveryFactName>(id: string, fact: K): DeliveryFacts[K] | undefined {
    const schema: z.ZodType<unknown> = deliveryFactSchemas[fact];
    return readJsonFile(this.path(id, fact), schema) as DeliveryFacts[K] | undefined;
  }

  has(id: string, fact: DeliveryFactName): boolean {
    return existsSync(this.path(id, fact));
  }

  all(id: string): DeliveryFacts {
    const facts: DeliveryFacts = {};
    for (const fact of DELIVERY_FACTS) {
      const value = this.get(id, fact);
      if (value !== undefined) (facts as Record<string, unknown>)[fact] = value;
    }
    return facts;
  }

  private path(id: string, fact: DeliveryFactName): string {
    return join(this.dir, `${id.toLowerCase()}.${fact}.json`);
  }
}
