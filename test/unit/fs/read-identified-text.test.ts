import type { BigIntStats } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';

/**
 * What a cache keyed by a file's identity needs of its read (the registry's validated-cache,
 * src/adapters/file/registry-validation.ts): the identity as the descriptor was opened, and when the file
 * last changed as it is after the read — so a write in place while it was read shows as a change just made,
 * and the identity is not believed. The second look is made to see such a write.
 */
const looks = vi.hoisted(() => ({ count: 0, writtenDuringRead: false }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const fstatSync = ((fd: number, options?: { bigint?: boolean }) => {
    const stat = fs.fstatSync(fd, options as { bigint: true });
    looks.count++;
    // The look after the read, of a file someone wrote in place meanwhile: its ctime moved on.
    if (looks.writtenDuringRead && looks.count === 2)
      return Object.assign(Object.create(Object.getPrototypeOf(stat) as object) as BigIntStats, stat, {
        ctimeNs: stat.ctimeNs + 5_000_000_000n,
      });
    return stat;
  }) as typeof fs.fstatSync;
  return { ...fs, fstatSync, default: { ...fs, fstatSync } };
});

const { writeFileSync, statSync } = await import('node:fs');
const { join } = await import('node:path');
const { readIdentifiedTextFile } = await import('fed/testing');
const { tempDir } = await import('../../helpers/temp-dir.js');

describe('reading a file for a cache keyed by its identity', () => {
  it('takes the identity as it was opened and when it changed from a look after the read', () => {
    const file = join(tempDir(), 'registry.json');
    writeFileSync(file, '{"teams":[]}');
    const { ino, size, mtimeNs, ctimeNs } = statSync(file, { bigint: true });
    looks.count = 0;
    looks.writtenDuringRead = true;
    const read = readIdentifiedTextFile(file, 'fix it')!;
    expect(looks.count).toBe(2);
    expect(read.identity).toBe(`${ino}:${size}:${mtimeNs}:${ctimeNs}`);
    expect(read.changedMs).toBe(Number((ctimeNs + 5_000_000_000n) / 1_000_000n));
    expect(read.readAtMs).toBeGreaterThanOrEqual(Number(ctimeNs / 1_000_000n));
    expect(read.text).toBe('{"teams":[]}');
  });
});
