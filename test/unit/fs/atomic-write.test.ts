import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** fsync(2) failing (a disk error) where the test says so, through the thread pool or not. */
let failingFsync: NodeJS.ErrnoException | undefined;
/**
 * A reader that looks at the target in the middle of a write: when set, each write(2) stores at most half
 * of what it is asked (a short write, as the kernel may do), and this runs after each one.
 */
let midWrite: (() => void) | undefined;
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const wrapped = {
    ...real,
    writeSync: (fd: number, buffer: Uint8Array, offset = 0, length = buffer.length - offset) => {
      if (!midWrite) return real.writeSync(fd, buffer, offset, length);
      const written = real.writeSync(fd, buffer, offset, Math.max(1, Math.floor(length / 2)));
      midWrite();
      return written;
    },
    fsync: (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) =>
      failingFsync ? setImmediate(() => callback(failingFsync!)) : real.fsync(fd, callback),
    fsyncSync: (fd: number) => {
      if (failingFsync) throw failingFsync;
      return real.fsyncSync(fd);
    },
  };
  return { ...wrapped, default: wrapped };
});

const { createFileExclusive, publishFileNoClobber, writeFileAtomic, writeTempFiles } =
  await import('../../../src/infra/fs/atomic-write.js');
const { tempDir } = await import('../../helpers/temp-dir.js');

const diskError = () => Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO', errno: -5, syscall: 'fsync' });

afterEach(() => {
  failingFsync = undefined;
  midWrite = undefined;
});

describe('temp files for durable publishing', () => {
  it('hold the data, flushed, one beside each target', async () => {
    const dir = tempDir();
    const targets = ['a', 'b'].map((name) => join(dir, `${name}.json`));
    const written = await Promise.allSettled(writeTempFiles(targets, '{"x":1}\n'));
    expect(written.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
    for (const result of written)
      expect(readFileSync((result as PromiseFulfilledResult<string>).value, 'utf8')).toBe('{"x":1}\n');
  });

  it('a failed fsync leaves no temp file behind, and its error names the target', async () => {
    const dir = tempDir();
    failingFsync = diskError();
    const [result] = await Promise.allSettled(writeTempFiles([join(dir, 'a.json')], '{"x":1}\n'));
    expect(result).toMatchObject({ status: 'rejected', reason: { code: 'EIO', path: join(dir, 'a.json') } });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('each target fails on its own: a missing folder is refused for that copy, the other is written', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'here'));
    const [missing, here] = await Promise.allSettled(
      writeTempFiles([join(dir, 'gone', 'a.json'), join(dir, 'here', 'a.json')], 'x'),
    );
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

describe('a reader racing the writer never sees a partial file', () => {
  const NEW = `${'n'.repeat(64 * 1024)}\n`;

  /** What a reader finds at `target` in the middle of each write(2) `write` makes, and that it looked. */
  function readsDuring(target: string, write: () => void): string[] {
    const seen: string[] = [];
    midWrite = () => {
      try {
        seen.push(readFileSync(target, 'utf8'));
      } catch (error) {
        seen.push((error as NodeJS.ErrnoException).code ?? 'error');
      }
    };
    write();
    midWrite = undefined;
    return seen;
  }

  it('an atomic replace: the old content until the new one is whole, then the new one', () => {
    const target = join(tempDir(), 'state.json');
    writeFileAtomic(target, 'old');
    const seen = readsDuring(target, () => writeFileAtomic(target, NEW));
    // It did look mid-write: a write that bypassed write(2) here would prove nothing.
    expect(seen.length).toBeGreaterThan(1);
    expect(new Set(seen)).toEqual(new Set(['old']));
    expect(readFileSync(target, 'utf8')).toBe(NEW);
  });

  it('a publish and an exclusive create: no file at the name until it is whole', () => {
    const dir = tempDir();
    const published = join(dir, 'signal.json');
    const seenPublishing = readsDuring(published, () => publishFileNoClobber(dir, 'signal.json', NEW));
    const created = join(dir, 'seed.json');
    const seenCreating = readsDuring(created, () => createFileExclusive(created, NEW));
    for (const seen of [seenPublishing, seenCreating]) {
      expect(seen.length).toBeGreaterThan(1);
      expect(new Set(seen)).toEqual(new Set(['ENOENT']));
    }
    expect(readFileSync(published, 'utf8')).toBe(NEW);
    expect(readFileSync(created, 'utf8')).toBe(NEW);
  });

  it('a reader in another thread, polling while the file is replaced again and again, sees only whole versions', async () => {
    const target = join(tempDir(), 'state.json');
    const version = (n: number) => `${String(n).padStart(4, '0')}${'x'.repeat(256 * 1024)}\n`;
    writeFileAtomic(target, version(0), { durable: false });
    const reader = new Worker(
      `const { readFileSync } = require('node:fs');
       const { parentPort, workerData } = require('node:worker_threads');
       let reads = 0, torn = 0, stop = false;
       parentPort.on('message', () => (stop = true));
       (function poll() {
         for (let i = 0; i < 50; i++) {
           const text = readFileSync(workerData, 'utf8');
           reads++;
           if (text.length !== ${4 + 256 * 1024 + 1} || !text.endsWith('\\n')) torn++;
         }
         if (stop) parentPort.postMessage({ reads, torn });
         else setImmediate(poll);
       })();`,
      { eval: true, workerData: target },
    );
    for (let n = 1; n <= 200; n++) writeFileAtomic(target, version(n), { durable: false });
    const counts = await new Promise<{ reads: number; torn: number }>((resolve) => {
      reader.once('message', resolve);
      reader.postMessage('stop');
    });
    await reader.terminate();
    expect(counts.reads).toBeGreaterThan(0);
    expect(counts.torn).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe(version(200));
  });
});
