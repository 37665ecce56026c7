import { describe, expect, it } from 'vitest';
import { RegistryConflictError } from 'fed';
import type { Registry } from '../../../src/core/schema/registry.js';
import { updateRegistryIn } from '../../../src/engine/registry/update-registry.js';
import type { RegistryStore } from '../../../src/ports/registry-store.js';

/**
 * updateRegistryIn on a store with no update of its own (read, then a compare-and-swap commit: the
 * JetStream store's way), over a store in memory that keeps the port's contract.
 */
class MemoryStore implements RegistryStore {
  readonly location = 'memory://registry';
  reads = 0;
  commits = 0;
  /** Another writer landing before each of this many commits. */
  meddle = 0;

  constructor(public registry: Registry) {}

  async read(): Promise<Registry> {
    this.reads++;
    return structuredClone(this.registry);
  }

  async commit(expected: number, next: Registry): Promise<Registry> {
    this.commits++;
    if (this.meddle > 0) {
      this.meddle--;
      this.registry = { ...this.registry, lockVersion: this.registry.lockVersion + 1 };
    }
    if (expected !== this.registry.lockVersion)
      throw new RegistryConflictError(
        this.location,
        expected,
        this.registry.lockVersion,
        undefined,
        structuredClone(this.registry),
      );
    this.registry = { ...next, lockVersion: expected + 1 };
    return structuredClone(this.registry);
  }

  async create(): Promise<boolean> {
    return false;
  }
}

const empty = (): Registry => ({ lastUpdated: '2026-01-01T00:00:00.000Z', lockVersion: 4, teams: [] });
const note = (registry: Registry, text: string): Registry => ({ ...registry, note: text }) as Registry;

describe('updateRegistryIn over a read-then-commit store', () => {
  it('reads, and commits what the mutation returns on top of the version read', async () => {
    const store = new MemoryStore(empty());
    const result = await updateRegistryIn(store, (registry) => note(registry, 'mine'));
    expect(result).toEqual({ registry: { ...note(empty(), 'mine'), lockVersion: 5 }, changed: true, attempts: 1 });
    expect(store.reads).toBe(1);
  });

  it('the mutation gets a copy of its own of the registry the caller read', async () => {
    const current = empty();
    await updateRegistryIn(
      new MemoryStore(empty()),
      (registry) => {
        registry.teams.push({} as never);
        return registry;
      },
      { current },
    );
    expect(current.teams).toEqual([]);
  });

  it('a mutation that changes nothing commits nothing and gives the registry read', async () => {
    const store = new MemoryStore(empty());
    expect(await updateRegistryIn(store, () => undefined)).toEqual({ registry: empty(), changed: false, attempts: 1 });
    expect(store.commits).toBe(0);
  });

  it('starts from the registry the caller read, and after a conflict from the one the store attached', async () => {
    const store = new MemoryStore(empty());
    store.meddle = 1;
    const seen: number[] = [];
    const conflicts: RegistryConflictError[] = [];
    const result = await updateRegistryIn(
      store,
      (registry) => {
        seen.push(registry.lockVersion);
        return note(registry, 'mine');
      },
      { current: empty(), onConflict: (error) => conflicts.push(error) },
    );
    expect(store.reads).toBe(0);
    expect(seen).toEqual([4, 5]);
    expect(conflicts.map((c) => [c.expected, c.actual])).toEqual([[4, 5]]);
    expect(result).toMatchObject({ changed: true, attempts: 2, registry: { lockVersion: 6, note: 'mine' } });
  });

  it('gives up after maxAttempts, naming the versions of the last conflict', async () => {
    const store = new MemoryStore(empty());
    store.meddle = 10;
    const error = await updateRegistryIn(store, (registry) => note(registry, 'never'), { maxAttempts: 2 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RegistryConflictError);
    expect(error).toMatchObject({ expected: 5, actual: 6 });
    expect((error as Error).message).toBe(
      'memory://registry kept changing underneath this write; gave up after 2 attempts (lockVersion 6). Try again.',
    );
  });

  it('with no attempt at all, gives up at once on versions it never saw', async () => {
    const store = new MemoryStore(empty());
    const error = await updateRegistryIn(store, (registry) => registry, { maxAttempts: 0 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ expected: -1, actual: -1 });
    expect(store.reads).toBe(0);
  });

  it('another error from the store is the caller’s, at once', async () => {
    const store = new MemoryStore(empty());
    store.commit = async () => {
      throw new Error('disk on fire');
    };
    await expect(updateRegistryIn(store, (registry) => note(registry, 'x'))).rejects.toThrow('disk on fire');
    expect(store.reads).toBe(1);
  });
});
