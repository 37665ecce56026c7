import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** fsync(2) failing (a disk error) where the test says so, through the thread pool or not. */
let failingFsync: NodeJS.ErrnoException | undefined;
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const wrapped = {
    ...real,
    fsync: (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) =>
      failingFsync ? setImmediate(() => callback(failingFsync!)) : real.fsync(fd, callback),
    fsyncSync: (fd: number) => {
      if (failingFsync) throw failingFsync;
      return real.fsyncSync(fd);
    },
  };
  return { ...wrapped, default: wrapped };
});

const { writeFileAtomic, writeTempFiles } = await import('../../../src/infra/fs/atomic-write.js');
const { tempDir } = await import('../../helpers/temp-dir.js');

const diskError = () => Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO', errno: -5, syscall: 'fsync' });

afterEach(() => {
  failingFsync = undefined;
});

describe('temp files for durable publishing', () => {
  it('hold the data, flushed, one beside each target', async () => {
    const dir = tempDir();
    const targets = ['a', 'b'].map((name) => join(dir, `${name}.json`));
    const written = await writeTempFiles(targets, '{"x":1}\n');
    expect(written.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
    for (const result of written)
      expect(readFileSync((result as PromiseFulfilledResult<string>).value, 'utf8')).toBe('{"x":1}\n');
  });

  it('a failed fsync leaves no temp file behind, and its error names the target', async () => {
    const dir = tempDir();
    failingFsync = diskError();
    const [result] = await writeTempFiles([join(dir, 'a.json')], '{"x":1}\n');
    expect(result).toMatchObject({ status: 'rejected', reason: { code: 'EIO', path: join(dir, 'a.json') } });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('each target fails on its own: a missing folder is refused for that copy, the other is written', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'here'));
    const [missing, here] = await writeTempFiles([join(dir, 'gone', 'a.json'), join(dir, 'here', 'a.json')], 'x');
    expect(missing).toMatchObject({ status: 'rejected', reason: { code: 'ENOENT' } });
    expect(here?.status).toBe('fulfilled');
  });

  it('an atomic replace whose fsync fails leaves the old file and no temp file', () => {
    const dir = tempDir();
    const target = join(dir, 'state.json');
    writeFileAtomic(target, 'old');
    failingFsync = diskError();
    expect(() => writeFileAtomic(target, 'new')).toThrow(expect.objectContaining({ code: 'EIO', path: target }));
    expect(readdirSync(dir)).toEqual(['state.json']);
    expect(readFileSync(target, 'utf8')).toBe('old');
  });
});
