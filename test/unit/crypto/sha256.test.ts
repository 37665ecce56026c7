import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../../src/infra/crypto/sha256.js';

const native = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

describe('sha256', () => {
  it("is node:crypto's SHA-256 for every size, below and above the size it hashes natively from", () => {
    // Sizes around each 64-byte block's padding boundary, and around 2 KB where it switches.
    const sizes = [0, 1, 55, 56, 63, 64, 65, 119, 120, 2047, 2048, 2049, 10_000];
    for (const size of sizes) {
      const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 31 + size) & 0xff);
      expect(sha256(bytes).toString('hex'), `${size} bytes`).toBe(native(bytes));
    }
  });

  it('hashes a string as UTF-8, its size counted in bytes', () => {
    for (const text of ['', 'report: preparing → scanning', '🚀'.repeat(600), 'é'.repeat(1023), 'é'.repeat(1024)])
      expect(sha256(text).toString('hex')).toBe(native(Buffer.from(text, 'utf8')));
  });
});
