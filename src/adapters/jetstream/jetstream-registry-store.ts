import { CorruptFileError, NotAFederationError, RegistryConflictError } from '../../core/errors.js';
import { toJsonText } from '../../core/json-text.js';
import type { RegistryCommitOptions, RegistryStore } from '../../ports/registry-store.js';
import { nextLockVersion, registrySchema, type Registry } from '../../core/schema/registry.js';
import { zodProblemText } from '../../core/schema/problems.js';
import type { FederationStreams } from './federation-streams.js';
import type { JetStreamNames } from './names.js';
import { isWrongLastSequence } from './jetstream-errors.js';
import { retryTransient } from './transient.js';
import { JetStreamRegistryWatch } from './registry-watch.js';

const KEY = 'registry';

interface Stored {
  registry: Registry;
  revision: number;
}

/**
 * The registry (docs/design/spec.md §2.4) as one KV entry. The `lockVersion` compare-and-swap is the KV revision check:
 * a commit updates the entry only at the revision holding the `lockVersion` it expects, so two writers on
 * two machines cannot both land on one version — the second gets RegistryConflictError and retries on
 * top of the first (`updateRegistry`), exactly as with the file.
 */
export class JetStreamRegistryStore implements RegistryStore {
  readonly location: string;
  private readonly federation: string;
  /** The revision each recently read lockVersion was stored at, so a commit needs no second read. */
  private readonly revisions = new Map<number, number>();
  private readonly names: JetStreamNames;
  /** The watched copy, once a long-running process asked for one (`watch`). */
  private watching: JetStreamRegistryWatch | undefined;

  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    names: JetStreamNames,
    where: string,
  ) {
    this.location = `${where} KV ${names.registryBucket}/${KEY}`;
    this.federation = names.federation;
    this.names = names;
  }

  watch(): JetStreamRegistryWatch {
    this.watching ??= new JetStreamRegistryWatch(this.streams, `$KV.${this.names.registryBucket}.${KEY}`);
    return this.watching;
  }

  private async fetch(): Promise<Stored | undefined> {
    this.watching?.listen();
    const epoch = this.watching?.epoch;
    const readAt = Date.now();
    const { registry } = await this.streams();
    const entry = await retryTransient(() => registry.get(KEY));
    if (!entry || entry.operation !== 'PUT') return undefined;
    const text = new TextDecoder().decode(entry.value);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new CorruptFileError(this.location, `not valid JSON (${(error as Error).message})`);
    }
    const parsed = registrySchema.safeParse(raw);
    if (!parsed.success) throw new CorruptFileError(this.location, zodProblemText(parsed.error));
    this.remember(parsed.data.lockVersion, entry.revision);
    if (epoch !== undefined)
      this.watching?.observe({ registry: parsed.data, revision: entry.revision, text }, epoch, readAt);
    return { registry: parsed.data, revision: entry.revision };
  }

  private remember(lockVersion: number, revision: number): void {
    this.revisions.set(lockVersion, revision);
    if (this.revisions.size > 16) this.revisions.delete(this.revisions.keys().next().value!);
  }

  async read(): Promise<Registry> {
    const stored = await this.fetch();
    if (!stored) {
      throw new NotAFederationError(
        `federation "${this.federation}" has no registry in JetStream (${this.location}); create it with: fed init --name ${this.federation}`,
      );
    }
    return stored.registry;
  }

  async commit(expectedVersion: number, next: Registry, options: RegistryCommitOptions = {}): Promise<Registry> {
    let revision = this.revisions.get(expectedVersion);
    if (revision === undefined) {
      const current = await this.fetch();
      if (!current)
        throw new NotAFederationError(
          `federation "${this.federation}" has no registry in JetStream (${this.location}); create it with: fed init --name ${this.federation}`,
        );
      if (current.registry.lockVersion !== expectedVersion)
        throw new RegistryConflictError(
          this.location,
          expectedVersion,
          current.registry.lockVersion,
          undefined,
          current.registry,
        );
      revision = current.revision;
    }
    const written: Registry = {
      ...next,
      lastUpdated: (options.now?.() ?? new Date()).toISOString(),
      lockVersion: nextLockVersion(expectedVersion, this.location),
    };
    const text = toJsonText(written);
    const { registry } = await this.streams();
    let retried = false;
    try {
      const stored = await retryTransient((attempt) => {
        retried = attempt > 1;
        return registry.update(KEY, text, revision);
      });
      this.remember(written.lockVersion, stored);
      return written;
    } catch (error) {
      // Anything but the server's "wrong last sequence" (another writer committed) is a failure.
      if (!isWrongLastSequence(error)) throw error;
      const current = await this.fetch();
      // An attempt that timed out may have landed before its retry was refused: then it is ours.
      if (retried && current && toJsonText(current.registry) === text) return written;
      throw new RegistryConflictError(
        this.location,
        expectedVersion,
        current?.registry.lockVersion ?? -1,
        undefined,
        current?.registry,
      );
    }
  }

  async create(initial: Registry): Promise<boolean> {
    const { registry } = await this.streams();
    try {
      const revision = await retryTransient(() => registry.create(KEY, toJsonText(initial)));
      this.remember(initial.lockVersion, revision);
      return true;
    } catch (error) {
      // The server's "wrong last sequence": the key holds a registry already.
      if (isWrongLastSequence(error)) return false;
      throw error;
    }
  }
}
