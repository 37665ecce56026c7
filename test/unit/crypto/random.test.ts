import { afterEach, describe, expect, it, vi } from 'vitest';
import { isUuidV4 } from '../../helpers/uuid-v4.js';

/**
 * What /dev/urandom is for the module under test, set by each test: the kernel's device, missing (a
 * sandbox without /dev), a regular file put in its place, or a device with nothing to read (/dev/null).
 * Counts its opens and closes, and node:crypto's fallback fills.
 */
const kernel = vi.hoisted(() => ({
  as: 'device' as 'device' | 'missing' | 'file' | 'empty-device',
  file: '',
  opened: new Set<number>(),
  opens: 0,
  closes: 0,
  fallbackFills: 0,
}));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const openSync = (...args: Parameters<typeof fs.openSync>): number => {
    if (args[0] !== '/dev/urandom') return fs.openSync(...args);
    if (kernel.as === 'missing') throw Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    const path = { device: '/dev/urandom', file: kernel.file, 'empty-device': '/dev/null' }[kernel.as];
    const fd = fs.openSync(path, 'r');
    kernel.opens++;
    kernel.opened.add(fd);
    return fd;
  };
  const closeSync = (fd: number): void => {
    if (kernel.opened.delete(fd)) kernel.closes++;
    fs.closeSync(fd);
  };
  return { ...fs, default: { ...fs, openSync, closeSync }, openSync, closeSync };
});

vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  const randomFillSync = ((buffer: Buffer) => {
    kernel.fallbackFills++;
    return crypto.randomFillSync(buffer);
  }) as typeof crypto.randomFillSync;
  return { ...crypto, default: { ...crypto, randomFillSync }, randomFillSync };
});

/** The module afresh: its pool starts empty. */
async function freshRandom(): Promise<typeof import('../../../src/infra/crypto/random.js')> {
  vi.resetModules();
  return import('../../../src/infra/crypto/random.js');
}

afterEach(() => {
  Object.assign(kernel, { as: 'device', file: '', opens: 0, closes: 0, fallbackFills: 0 });
  kernel.opened.clear();
});

describe('random bytes and ids without node:crypto', () => {
  it('hands out bytes of the size asked, none twice, reading the kernel a pool at a time', async () => {
    const { randomBytes } = await freshRandom();
    const sizes = [6, 16, 200, 40, 1, 1000, 6];
    const taken = sizes.map((size) => randomBytes(size));
    expect(taken.map((bytes) => bytes.length)).toEqual(sizes);
    // 6 + 16 + 200 fit a pool of 256; 40 needs a second, 1 fits it, 1 000 a third of its own size, 6 a fourth.
    expect({ opens: kernel.opens, closes: kernel.closes, fallbackFills: kernel.fallbackFills }).toEqual({
      opens: 4,
      closes: 4,
      fallbackFills: 0,
    });
    // No two slices the same, and no slice all zero: each is fresh from the kernel.
    const hex = taken.filter((bytes) => bytes.length >= 6).map((bytes) => bytes.toString('hex'));
    expect(new Set(hex).size).toBe(hex.length);
    for (const bytes of taken.filter((each) => each.length >= 6)) expect(bytes.some((byte) => byte !== 0)).toBe(true);
  });

  it('makes version 4 UUIDs, all different', async () => {
    const { randomUuid } = await freshRandom();
    const ids = Array.from({ length: 1000 }, () => randomUuid());
    for (const id of ids) expect(isUuidV4(id), id).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(kernel.fallbackFills).toBe(0);
  });

  it.each([
    ['cannot be opened', 'missing' as const, 0],
    ['is a regular file put in its place', 'file' as const, 1],
    ['is a device that gives nothing', 'empty-device' as const, 1],
  ])("falls back to node:crypto's generator where /dev/urandom %s", async (_, as, opens) => {
    kernel.as = as;
    kernel.file = `${import.meta.dirname}/random.test.ts`;
    const { randomBytes, randomUuid } = await freshRandom();
    const bytes = randomBytes(32);
    expect(bytes.length).toBe(32);
    expect(bytes.some((byte) => byte !== 0)).toBe(true);
    expect({ opens: kernel.opens, closes: kernel.closes, fallbackFills: kernel.fallbackFills }).toEqual({
      opens,
      closes: opens,
      fallbackFills: 1,
    });
    expect(isUuidV4(randomUuid())).toBe(true);
    expect(randomBytes(32).equals(bytes)).toBe(false);
  });
});
