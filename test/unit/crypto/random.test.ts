import { afterEach, describe, expect, it, vi } from 'vitest';

/** Whether /dev/urandom refuses to open, as where a sandbox has no /dev: set by the test that needs it. */
const kernel = vi.hoisted(() => ({ refuse: false, opened: 0 }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    openSync: (...args: Parameters<typeof fs.openSync>) => {
      if (args[0] === '/dev/urandom') {
        kernel.opened++;
        if (kernel.refuse) throw Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
      }
      return fs.openSync(...args);
    },
  };
});

/** The module afresh: its pool starts empty. */
async function freshRandom(): Promise<typeof import('../../../src/infra/crypto/random.js')> {
  vi.resetModules();
  return import('../../../src/infra/crypto/random.js');
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => {
  kernel.refuse = false;
  kernel.opened = 0;
});

describe('random bytes and ids without node:crypto', () => {
  it('hands out bytes of the size asked, none twice, reading the kernel a pool at a time', async () => {
    const { randomBytes } = await freshRandom();
    const sizes = [6, 16, 200, 40, 1, 1000, 6];
    const taken = sizes.map((size) => randomBytes(size));
    expect(taken.map((bytes) => bytes.length)).toEqual(sizes);
    // 6 + 16 + 200 fit a pool of 256; 40 needs a second, 1 fits it, 1 000 a third of its own size, 6 a fourth.
    expect(kernel.opened).toBe(4);
    // No two slices the same, and no slice all zero: each is fresh from the kernel.
    const hex = taken.filter((bytes) => bytes.length >= 6).map((bytes) => bytes.toString('hex'));
    expect(new Set(hex).size).toBe(hex.length);
    for (const bytes of taken.filter((each) => each.length >= 6)) expect(bytes.some((byte) => byte !== 0)).toBe(true);
  });

  it('makes version 4 UUIDs, all different', async () => {
    const { randomUuid } = await freshRandom();
    const ids = Array.from({ length: 1000 }, () => randomUuid());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("falls back to node:crypto's generator where /dev/urandom cannot be opened", async () => {
    kernel.refuse = true;
    const { randomBytes, randomUuid } = await freshRandom();
    const bytes = randomBytes(32);
    expect(kernel.opened).toBe(1);
    expect(bytes.length).toBe(32);
    expect(bytes.some((byte) => byte !== 0)).toBe(true);
    expect(randomUuid()).toMatch(UUID_V4);
    expect(randomBytes(32).equals(bytes)).toBe(false);
  });
});
