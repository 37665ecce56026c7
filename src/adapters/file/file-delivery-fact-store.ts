import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { createFileExclusiveAsync } from '../../infra/fs/atomic-write.js';
import type { CheckedRootFolders } from '../checked-root-folders.js';
import { listDirectory } from '../../infra/fs/list-directory.js';
import { toJsonText } from '../../core/json-text.js';
import { readJsonFile } from '../../infra/fs/read-json-file.js';
import { FED_DIR } from '../../core/layout.js';
import type { DeliveryFactStore } from '../../ports/delivery-fact-store.js';
import type { TransportWriteOptions } from '../../ports/signal-transport.js';
import {
  DELIVERY_DIR,
  DELIVERY_FACTS,
  deliveryFactSchemas,
  type DeliveryFactName,
  type DeliveryFacts,
} from '../../core/schema/delivery.js';

/**
 * How many checks of single fact files one listing of the folder is worth, per byte of the folder's size.
 * A listing costs in proportion to every fact of the federation (archived signals' too), about 1 µs per
 * entry; a check of one file about 3 µs; a folder takes 20 (tmpfs) to 80 (ext4) bytes per entry. So
 * `recorded` checks a few signals one by one, and answers a box's worth (`fed signal list` of 10 k) from
 * one listing — unless the folder holds far more facts than that. Either way the answer is the same.
 */
const CHECKS_PER_FOLDER_BYTE = 1 / 256;

export function deliveryDirectory(root: string): string {
  return join(root, FED_DIR, DELIVERY_DIR);
}

/**
 * `<root>/.fed/delivery/<id>.<fact>.json`, each created exclusively through src/infra/fs (complete or absent,
 * never replaced). Ids are UUIDs validated by the signal schema before they get here, so they cannot name
 * another directory.
 */
export class FileDeliveryFactStore implements DeliveryFactStore {
  readonly location: string;
  /**
   * A claim is a file of its own: written while the signal's copies are, its two flushes overlap theirs
   * instead of coming first (docs/operations.md, the send path). Its one refusal a caller can fix, a linked
   * folder, is `checkRecord`'s, made before anything is published.
   */
  readonly claimsAlongsidePublish = true;

  /** `folders`: the root's runtime folders, checked before each write (a link there is refused). */
  constructor(
    root: string,
    private readonly folders: CheckedRootFolders,
  ) {
    this.location = deliveryDirectory(root);
  }

  async record<K extends DeliveryFactName>(
    id: string,
    fact: K,
    value: NonNullable<DeliveryFacts[K]>,
    options: TransportWriteOptions = {},
  ): Promise<boolean> {
    const text = toJsonText(deliveryFactSchemas[fact].parse(value));
    // Each time: a long-running command must not write through a link planted since its last fact.
    this.checkRecord(options);
    return createFileExclusiveAsync(this.path(id, fact), text, { durable: options.durable ?? true });
  }

  /** The folder is resolved (made when missing): one that is or goes through a link is refused. */
  checkRecord(options: TransportWriteOptions = {}): void {
    this.folders.folderForWrite(this.location, { durable: options.durable ?? true });
  }

  async get<K extends DeliveryFactName>(id: string, fact: K): Promise<DeliveryFacts[K] | undefined> {
    const schema: z.ZodType<unknown> = deliveryFactSchemas[fact];
    return readJsonFile(this.path(id, fact), schema) as DeliveryFacts[K] | undefined;
  }

  async has(id: string, fact: DeliveryFactName): Promise<boolean> {
    return existsSync(this.path(id, fact));
  }

  async recorded(
    ids: readonly string[],
    facts: readonly DeliveryFactName[],
  ): Promise<Map<string, Set<DeliveryFactName>>> {
    const found = new Map<string, Set<DeliveryFactName>>();
    const note = (id: string, fact: DeliveryFactName) => {
      const set = found.get(id);
      if (set) set.add(fact);
      else found.set(id, new Set([fact]));
    };
    const folderBytes = statSync(this.location, { throwIfNoEntry: false })?.size;
    if (folderBytes === undefined) return found;
    if (ids.length * facts.length <= folderBytes * CHECKS_PER_FOLDER_BYTE) {
      for (const id of ids) for (const fact of facts) if (existsSync(this.path(id, fact))) note(id.toLowerCase(), fact);
      return found;
    }
    const wanted = new Set(ids.map((id) => id.toLowerCase()));
    const asked = new Set<string>(facts);
    for (const name of listDirectory(this.location)) {
      // `<id>.<fact>.json`: the id is a UUID (no dots), so the first dot ends it.
      const dot = name.indexOf('.');
      const fact = name.slice(dot + 1, -'.json'.length);
      if (dot < 0 || !name.endsWith('.json') || !asked.has(fact)) continue;
      const id = name.slice(0, dot);
      if (wanted.has(id)) note(id, fact as DeliveryFactName);
    }
    return found;
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
