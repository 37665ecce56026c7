import { afterEach, describe, expect, it, vi } from 'vitest';
import { sha256 } from '../../../src/infra/crypto/sha256.js';

/** node:crypto's hashes made by the module under test: none below the size it hashes natively from. */
const native = vi.hoisted(() => ({ hashes: 0 }));

vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  const counted = ((...args: Parameters<typeof crypto.createHash>) => {
    native.hashes++;
    return crypto.createHash(...args);
  }) as typeof crypto.createHash;
  return { ...crypto, default: { ...crypto, createHash: counted }, createHash: counted };
});

afterEach(() => {
  native.hashes = 0;
});

/** node:crypto's digest, uncounted. */
const { createHash } = await vi.importActual<typeof import('node:crypto')>('node:crypto');
const expected = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

describe('sha256', () => {
  it("is node:crypto's SHA-256 for every size, hashed in JavaScript below 2 KB and natively from there", () => {
    // Sizes around each 64-byte block's padding boundary, and around 2 KB where it switches.
    for (const size of [0, 1, 55, 56, 63, 64, 65, 119, 120, 2047, 2048, 2049, 10_000]) {
      const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 31 + size) & 0xff);
      const before = native.hashes;
      expect(sha256(bytes).toString('hex'), `${size} bytes`).toBe(expected(bytes));
      expect(native.hashes - before, `${size} bytes`).toBe(size >= 2048 ? 1 : 0);
    }
  });

  it('hashes a string as UTF-8, its size counted in bytes', () => {
    // 1 023 é are 2 046 bytes, hashed in JavaScript; 1 024 are 2 048, hashed natively.
    const cases = [
      ['', 0],
      ['report: preparing → scanning', 0],
      ['é'.repeat(1023), 0],
      ['é'.repeat(1024), 1],
      ['🚀'.repeat(600), 1],
    ] as const;
    for (const [text, hashes] of cases) {
      const before = native.hashes;
      expect(sha256(text).toString('hex')).toBe(expected(Buffer.from(text, 'utf8')));
      expect(native.hashes - before, `${Buffer.byteLength(text)} bytes`).toBe(hashes);
    }
  });
});
