import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { createFileExclusive } from '../../fs/atomic-write.js';
import { ensureDirectory } from '../../fs/ensure-directory.js';
import { toJsonText } from '../../fs/json-text.js';
import { readJsonFile } from '../../fs/read-json-file.js';
import { FED_DIR } from '../../layout.js';
import type { DeliveryFactStore } from '../../ports/delivery-fact-store.js';
import type { TransportWriteOptions } from '../../ports/signal-transport.js';
import { DELIVERY_DIR, DELIVERY_FACTS, deliveryFactSchemas, type DeliveryFactName, type DeliveryFacts } from '../../schema/delivery.js';

export function deliveryDirectory(root: string): string {
  return join(root, FED_DIR, DELIVERY_DIR);
}

/**
 * `<root>/.fed/delivery/<id>.<fact>.json`, each created exclusively through src/fs (complete or absent,
 * never replaced). Ids are UUIDs validated by the signal schema before they get here, so they cannot name
 * another directory.
 */
export class FileDeliveryFactStore implements DeliveryFactStore {
  readonly location: string;
  private ensured = false;

  constructor(root: string) {
    this.location = deliveryDirectory(root);
  }

  async record<K extends DeliveryFactName>(id: string, fact: K, value: NonNullable<DeliveryFacts[K]>, options: TransportWriteOptions = {}): Promise<boolean> {
    const text = toJsonText(deliveryFactSchemas[fact].parse(value));
    const writeOptions = { durable: options.durable ?? true };
    if (!this.ensured) {
      ensureDirectory(this.location, writeOptions);
      this.ensured = true;
    }
    return createFileExclusive(this.path(id, fact), text, writeOptions);
  }

  async get<K extends DeliveryFactName>(id: string, fact: K): Promise<DeliveryFacts[K] | undefined> {
    const schema: z.ZodType<unknown> = deliveryFactSchemas[fact];
    return readJsonFile(this.path(id, fact), schema) as DeliveryFacts[K] | undefined;
  }

  async has(id: string, fact: DeliveryFactName): Promise<boolean> {
    return existsSync(this.path(id, fact));
  }

  async all(id: string): Promise<DeliveryFacts> {
    const facts: DeliveryFacts = {};
    for (const fact of DELIVERY_FACTS) {
      const value = await this.get(id, fact);
      if (value !== undefined) (facts as Record<string, unknown>)[fact] = value;
    }
    return facts;
  }

  /** Where one fact is, to show to a person. */
  path(id: string, fact: DeliveryFactName): string {
    return join(this.location, `${id.toLowerCase()}.${fact}.json`);
  }
}
