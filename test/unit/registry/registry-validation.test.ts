import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckedRootFolders, federationPaths } from 'fed/testing';
import {
  REMEMBERED_FROM_BYTES,
  RegistryValidation,
  type ReadStamp,
} from '../../../src/adapters/file/registry-validation.js';
import { REGISTRY_SCHEMA_REVISION } from '../../../src/core/schema/registry.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * What fed remembers of the registry texts it validated, across commands (registry-validation.ts): on real
 * files, the hint it writes and when it believes it.
 */

const LARGE = `{"teams":[${'"x",'.repeat(REMEMBERED_FROM_BYTES / 4)}"x"]}`;
const digest = (text: string) => createHash('sha256').update(`${REGISTRY_SCHEMA_REVISION}\0${text}`).digest('hex');
/** A read of a file that had not changed for 5 s; `identity` names the file. */
const settled = (identity: string, readAtMs = 1_000_000): ReadStamp => ({
  identity,
  changedMs: readAtMs - 5_000,
  readAtMs,
});
/** A read of a file changed 1 s before it. */
const fresh = (identity: string, readAtMs = 1_000_000): ReadStamp => ({
  identity,
  changedMs: readAtMs - 1_000,
  readAtMs,
});

function root(): { root: string; hint: string; validation: RegistryValidation } {
  const dir = tempDir();
  mkdirSync(federationPaths(dir).fedDir);
  return {
    root: dir,
    hint: federationPaths(dir).registryValidated,
    validation: new RegistryValidation(dir, new CheckedRootFolders(dir)),
  };
}

describe('RegistryValidation: the digest of the last text validated whole', () => {
  it('remembers a large text by its digest, and believes that very text and no other', () => {
    const { hint, validation } = root();
    expect(validation.validated(LARGE)).toBe(false);
    validation.remember(LARGE);
    expect(readFileSync(hint, 'utf8')).toBe(digest(LARGE));
    expect(validation.validated(LARGE)).toBe(true);
    expect(validation.validated(`${LARGE} `)).toBe(false);
  });

  it('remembers nothing of a text below REMEMBERED_FROM_BYTES, and never believes one', () => {
    const { hint, validation } = root();
    const small = 'x'.repeat(REMEMBERED_FROM_BYTES - 1);
    validation.remember(small);
    expect(existsSync(hint)).toBe(false);
    writeFileSync(hint, digest(small));
    expect(validation.validated(small)).toBe(false);
    const atTheBound = 'x'.repeat(REMEMBERED_FROM_BYTES);
    validation.remember(atTheBound);
    expect(validation.validated(atTheBound)).toBe(true);
  });

  it('a digest of another schema revision is not believed', () => {
    const { hint, validation } = root();
    writeFileSync(
      hint,
      createHash('sha256')
        .update(`${REGISTRY_SCHEMA_REVISION + 1}\0${LARGE}`)
        .digest('hex'),
    );
    expect(validation.validated(LARGE)).toBe(false);
  });

  it('a reader without the root folders never writes the hint, but reads it', () => {
    const { root: dir, hint } = root();
    const reader = new RegistryValidation(dir);
    reader.remember(LARGE, settled('i'));
    expect(existsSync(hint)).toBe(false);
    writeFileSync(hint, digest(LARGE));
    expect(reader.validated(LARGE, settled('i'))).toBe(true);
    expect(readFileSync(hint, 'utf8')).toBe(digest(LARGE));
  });

  it('a hint that is missing, too large, a folder or a link is only a reason to validate', () => {
    const { root: dir, hint, validation } = root();
    expect(validation.validated(LARGE)).toBe(false);
    writeFileSync(hint, `${digest(LARGE)}\n${'x'.repeat(2048)}`);
    expect(validation.validated(LARGE)).toBe(false);
    rmSync(hint);
    const elsewhere = join(dir, 'elsewhere');
    writeFileSync(elsewhere, digest(LARGE));
    symlinkSync(elsewhere, hint);
    expect(validation.validated(LARGE)).toBe(false);
    rmSync(hint);
    mkdirSync(hint);
    expect(validation.validated(LARGE)).toBe(false);
  });

  it('a hint fed cannot write is skipped: a read-only .fed leaves the command to validate each time', () => {
    if (process.getuid?.() === 0) {
      // Root writes through a folder's mode: a link as the .fed folder is what refuses it here.
      const dir = tempDir();
      const real = join(dir, 'real-fed');
      mkdirSync(real);
      symlinkSync(real, federationPaths(dir).fedDir);
      const validation = new RegistryValidation(dir, new CheckedRootFolders(dir));
      expect(() => validation.remember(LARGE)).not.toThrow();
      expect(existsSync(join(real, 'team-registry.json.validated'))).toBe(false);
      return;
    }
    const { root: dir, hint, validation } = root();
    chmodSync(federationPaths(dir).fedDir, 0o500);
    try {
      expect(() => validation.remember(LARGE)).not.toThrow();
      expect(existsSync(hint)).toBe(false);
    } finally {
      chmodSync(federationPaths(dir).fedDir, 0o700);
    }
  });
});

describe('RegistryValidation: the identity of a settled file', () => {
  it('keeps the identity of a file settled when it was read, with the schema revision', () => {
    const { hint, validation } = root();
    validation.remember(LARGE, settled('ino:1 size:9'));
    expect(readFileSync(hint, 'utf8')).toBe(`${digest(LARGE)}\n${REGISTRY_SCHEMA_REVISION} ino:1 size:9`);
    // That very identity is believed without hashing: even for a text it would not match.
    expect(validation.validated(`${LARGE} `, settled('ino:1 size:9'))).toBe(true);
    expect(validation.validated(`${LARGE} `, settled('ino:2 size:9'))).toBe(false);
  });

  it('keeps no identity of a file changed within 2 s before it was read, and does not believe one', () => {
    const { hint, validation } = root();
    validation.remember(LARGE, fresh('ino:1'));
    expect(readFileSync(hint, 'utf8')).toBe(digest(LARGE));
    writeFileSync(hint, `${digest('other')}\n${REGISTRY_SCHEMA_REVISION} ino:1`);
    expect(validation.validated(`${LARGE} `, fresh('ino:1'))).toBe(false);
    // Exactly 2 s is settled.
    expect(validation.validated(`${LARGE} `, { identity: 'ino:1', changedMs: 0, readAtMs: 2_000 })).toBe(true);
    expect(validation.validated(`${LARGE} `, { identity: 'ino:1', changedMs: 1, readAtMs: 2_000 })).toBe(false);
  });

  it('the very text under an identity not kept is believed by its digest, and its identity kept now', () => {
    const { hint, validation } = root();
    validation.remember(LARGE);
    expect(validation.validated(LARGE, settled('ino:7'))).toBe(true);
    expect(readFileSync(hint, 'utf8')).toBe(`${digest(LARGE)}\n${REGISTRY_SCHEMA_REVISION} ino:7`);
    // Read fresh, it is believed by its digest, and the identity is not kept.
    validation.remember(LARGE);
    expect(validation.validated(LARGE, fresh('ino:8'))).toBe(true);
    expect(readFileSync(hint, 'utf8')).toBe(digest(LARGE));
  });
});
