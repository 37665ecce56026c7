import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CorruptFileError, initFederation, NotAFederationError, openFederation, RegistryConflictError } from 'fed';
import { commitRegistry, federationPaths, readRegistry, updateRegistryFile, updateRegistryIn } from 'fed/testing';
import type { Registry } from '../../../src/core/schema/registry.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The registry's commit under its lock, on real files: what it refuses and why, and the last check before
 * the rename (a writer that finds the file changed under it gets a conflict, never overwrites it).
 */

function federation(): { root: string; file: string } {
  const root = tempDir();
  initFederation(root, {}, {});
  return { root, file: federationPaths(root).registry };
}

/** A field of a newer fed's (the registry keeps keys it does not know): a change that is easy to see. */
const withNote = (registry: Registry, note: string): Registry => ({ ...registry, note }) as Registry;
const AT = new Date('2026-11-25T08:00:00.000Z');

describe('commitRegistry', () => {
  it('writes at the next version with lastUpdated now, and the file holds just that', async () => {
    const { root, file } = federation();
    const before = readRegistry(root);
    const written = await commitRegistry(root, before.lockVersion, before, { now: () => AT, durable: false });
    expect(written.lockVersion).toBe(before.lockVersion + 1);
    expect(written.lastUpdated).toBe('2026-11-25T08:00:00.000Z');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(written);
  });

  it('a stale version is a conflict naming both versions; nothing is written', async () => {
    const { root, file } = federation();
    const text = readFileSync(file, 'utf8');
    const error = await commitRegistry(root, 5, readRegistry(root)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryConflictError);
    expect(error).toMatchObject({ expected: 5, actual: 0 });
    expect((error as Error).message).toBe(
      `${file} changed underneath this write (read lockVersion 5, now 0); re-read and retry`,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('a registry that is not JSON, or whose lockVersion is no integer, is corrupt and left as it is', async () => {
    const { root, file } = federation();
    const registry = readRegistry(root);
    writeFileSync(file, '{"lockVersion": 0,');
    await expect(commitRegistry(root, 0, registry)).rejects.toThrow(CorruptFileError);
    await expect(commitRegistry(root, 0, registry)).rejects.toThrow(/is corrupt: not valid JSON \(/);
    for (const version of ['"0"', '0.5', 'null']) {
      writeFileSync(file, `{"lockVersion": ${version}}`);
      await expect(commitRegistry(root, 0, registry)).rejects.toThrow(
        `${file} is corrupt: lockVersion: expected an integer.`,
      );
      expect(readFileSync(file, 'utf8')).toBe(`{"lockVersion": ${version}}`);
    }
  });

  it('a registry that is no regular file is refused by name, saying how to get it back', async () => {
    const { root, file } = federation();
    rmSync(file);
    mkdirSync(file);
    expect(() => readRegistry(root)).toThrow(
      `${file} cannot be used: a directory, not a regular file; fed will not overwrite it; restore .fed/team-registry.json from a backup`,
    );
  });

  it('a registry removed is no federation, and says to run fed init', async () => {
    const { root, file } = federation();
    const registry = readRegistry(root);
    rmSync(file);
    await expect(commitRegistry(root, 0, registry)).rejects.toThrow(
      new NotAFederationError(`${file} disappeared; run: fed init`),
    );
    expect(() => readRegistry(root)).toThrow(`${root} is not an initialised federation (no ${file}); run: fed init`);
  });

  it('a file changed while the writer held the lock (a writer that lost it) is a conflict at the rename, not overwritten', async () => {
    const { root, file } = federation();
    const before = readRegistry(root);
    const meddled = JSON.stringify({ ...before, lockVersion: 7 });
    const error = await commitRegistry(root, 0, withNote(before, 'mine'), {
      durable: false,
      // Called under the lock, after the read: another writer lands here.
      now: () => {
        writeFileSync(file, meddled);
        return AT;
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryConflictError);
    expect(error).toMatchObject({ expected: 0, actual: 7 });
    expect(readFileSync(file, 'utf8')).toBe(meddled);
  });

  it('a writer that lost its lock before the rename gets a conflict at the version now there, and writes nothing', async () => {
    const { root, file } = federation();
    const before = readRegistry(root);
    const taken = JSON.stringify({ ...before, lockVersion: 9 });
    const error = await commitRegistry(root, 0, withNote(before, 'mine'), {
      durable: false,
      now: () => {
        // The lock taken over (its file gone) and the registry written by the new holder.
        rmSync(federationPaths(root).registryLock);
        writeFileSync(file, taken);
        return AT;
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryConflictError);
    expect(error).toMatchObject({ expected: 0, actual: 9 });
    expect(readFileSync(file, 'utf8')).toBe(taken);
  });

  it('a lost lock alone, the registry as it was read, is a conflict too: the new holder may be about to write', async () => {
    const { root, file } = federation();
    const before = readRegistry(root);
    const text = readFileSync(file, 'utf8');
    const error = await commitRegistry(root, 0, withNote(before, 'mine'), {
      durable: false,
      now: () => {
        rmSync(federationPaths(root).registryLock);
        return AT;
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryConflictError);
    expect(error).toMatchObject({ expected: 0, actual: 0 });
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('updateRegistryFile', () => {
  it('a mutation that changes nothing writes nothing, and gives the registry as it is', async () => {
    const { root, file } = federation();
    const mtime = statSync(file).mtimeMs;
    const text = readFileSync(file, 'utf8');
    const result = await updateRegistryFile(root, (registry) => {
      registry.note = 'changed in the copy only';
      return undefined;
    });
    expect(result.changed).toBe(false);
    expect(result.registry).toEqual(JSON.parse(text));
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(statSync(file).mtimeMs).toBe(mtime);
  });

  it('writes what the mutation returns at the version it read', async () => {
    const { root } = federation();
    const result = await updateRegistryFile(root, (registry) => withNote(registry, 'renamed'), { now: () => AT });
    expect(result).toMatchObject({ changed: true, registry: { note: 'renamed', lockVersion: 1 } });
    expect(readRegistry(root)).toMatchObject({ note: 'renamed', lockVersion: 1 });
  });

  it('a conflict at the rename is retried by updateRegistryIn on the registry as it now is, and both writes land', async () => {
    const { root, file } = federation();
    let meddle = true;
    const conflicts: RegistryConflictError[] = [];
    const result = await updateRegistryIn(
      openFederation(root).backend.registry,
      (registry) => ({ ...registry, teams: registry.teams, note: `${registry.note}+mine` }),
      {
        onConflict: (error) => conflicts.push(error),
        now: () => {
          if (meddle) {
            meddle = false;
            const now = JSON.parse(readFileSync(file, 'utf8')) as Registry;
            writeFileSync(file, JSON.stringify({ ...now, note: 'theirs', lockVersion: now.lockVersion + 1 }));
          }
          return AT;
        },
      },
    );
    expect(conflicts).toHaveLength(1);
    expect(result.attempts).toBe(2);
    expect(result.registry).toMatchObject({ note: 'theirs+mine', lockVersion: 2 });
  });

  it('gives up after maxAttempts conflicts, naming the last version seen', async () => {
    const { root, file } = federation();
    const error = await updateRegistryIn(
      openFederation(root).backend.registry,
      (registry) => withNote(registry, 'never'),
      {
        maxAttempts: 3,
        now: () => {
          const now = JSON.parse(readFileSync(file, 'utf8')) as Registry;
          writeFileSync(file, JSON.stringify({ ...now, lockVersion: now.lockVersion + 1 }));
          return AT;
        },
      },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryConflictError);
    expect((error as Error).message).toBe(
      `${file} kept changing underneath this write; gave up after 3 attempts (lockVersion 3). Try again.`,
    );
  });
});
