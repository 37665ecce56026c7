import { execFileSync } from 'node:child_process';
import {
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  Stats,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kindOf, readFileBounded, readFileParts } from '../../../src/infra/fs/read-file-bounded.js';
import { skipWithout } from '../../helpers/loud-skip.js';
import { tempDir } from '../../helpers/temp-dir.js';

const PROC_VERSION = '/proc/version';

/** Files whose size is not known in advance (procfs reports 0) are read to their end, within the bound. */
const SUITE = 'readFileBounded on a file that reports size 0';
describe.skipIf(skipWithout(SUITE, existsSync(PROC_VERSION) ? undefined : `${PROC_VERSION} is missing (no procfs)`))(
  SUITE,
  () => {
    it('reads /proc/version to its end, not one byte', () => {
      const read = readFileBounded(PROC_VERSION, { maxBytes: 1024 * 1024 });
      expect(read.ok).toBe(true);
      if (read.ok) expect(read.bytes.toString('utf8')).toBe(readFileSync(PROC_VERSION, 'utf8'));
    });

    it('reads one of several pages to its end too (/proc/self/maps), in growing chunks', () => {
      const read = readFileBounded('/proc/self/maps', { maxBytes: 1024 * 1024 });
      expect(read.ok).toBe(true);
      if (!read.ok) return;
      const text = read.bytes.toString('utf8');
      expect(text.length).toBeGreaterThan(4096);
      expect(text.endsWith('\n')).toBe(true);
      expect(
        text
          .split('\n')
          .slice(0, -1)
          .every((line) => /^[0-9a-f]+-[0-9a-f]+ /.test(line)),
      ).toBe(true);
    });

    it('refuses it when its content is over the limit', () => {
      const read = readFileBounded(PROC_VERSION, { maxBytes: 4 });
      expect(read).toMatchObject({ ok: false, problem: expect.stringMatching(/over the 4-byte limit/) });
    });
  },
);

describe('readFileBounded on what may be at a path', () => {
  it('reads a regular file up to exactly the limit, and refuses one byte more before reading it', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'ten'), 'x'.repeat(10));
    writeFileSync(join(dir, 'eleven'), 'x'.repeat(11));
    expect(readFileBounded(join(dir, 'ten'), { maxBytes: 10 })).toMatchObject({
      ok: true,
      bytes: Buffer.from('x'.repeat(10)),
    });
    expect(readFileBounded(join(dir, 'eleven'), { maxBytes: 10 })).toMatchObject({
      ok: false,
      problem: 'the file is 11 bytes, over the 10-byte limit',
      stat: expect.objectContaining({ size: 11 }),
    });
  });

  it('reads an empty file as empty', () => {
    const file = join(tempDir(), 'empty');
    writeFileSync(file, '');
    expect(readFileBounded(file)).toMatchObject({ ok: true, bytes: Buffer.alloc(0) });
  });

  it('throws only for a missing file', () => {
    expect(() => readFileBounded(join(tempDir(), 'none'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  it('follows a link unless told not to, and then reports the link', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'real.json'), '{}');
    symlinkSync(join(dir, 'real.json'), join(dir, 'link.json'));
    expect(readFileBounded(join(dir, 'link.json'))).toMatchObject({ ok: true, bytes: Buffer.from('{}') });
    expect(readFileBounded(join(dir, 'link.json'), { noFollow: true })).toEqual({
      ok: false,
      problem: 'a symbolic link, not a file',
      code: 'ELOOP',
    });
  });

  it.each([
    ['a path through a file', (dir: string) => join(writeFile(dir, 'file'), 'x'), 'ENOTDIR'],
    ['a symbolic link loop', (dir: string) => loop(dir), 'ELOOP'],
  ])('reports %s it cannot open, with the errno', (_, make, code) => {
    expect(readFileBounded(make(tempDir()))).toEqual({ ok: false, problem: `cannot be read (${code})`, code });
  });

  it('not following links, still reports a path through a file as what it is', () => {
    const path = join(writeFile(tempDir(), 'file'), 'x');
    expect(readFileBounded(path, { noFollow: true })).toEqual({
      ok: false,
      problem: 'cannot be read (ENOTDIR)',
      code: 'ENOTDIR',
    });
  });

  it('reports what a path that is not a regular file is, without reading it', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'folder'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    for (const [path, kind] of [
      [join(dir, 'folder'), 'a directory'],
      [join(dir, 'fifo'), 'a named pipe (FIFO)'],
      ['/dev/null', 'a device'],
    ] as const)
      expect(readFileBounded(path)).toEqual({
        ok: false,
        problem: `${kind}, not a regular file`,
        stat: expect.objectContaining({ ino: statSync(path).ino }),
      });
  });
});

describe('readFileParts: byte ranges of a file, never the whole of it', () => {
  const parts = (path: string, options: { maxBytes?: number; noFollow?: boolean } = {}) =>
    readFileParts(path, options, (read, size) => ({
      size,
      head: read(0, 3)?.toString(),
      middle: read(4, 2)?.toString(),
      none: read(10, 0)?.toString(),
      past: read(8, 5),
      before: read(-1, 2),
    }));

  it('reads the ranges asked for of a regular file within the limit; a range past its end is undefined', () => {
    const path = writeFile(tempDir(), 'file', 'abc-de-fghij');
    expect(parts(path, { maxBytes: 12 })).toEqual({
      size: 12,
      head: 'abc',
      middle: 'de',
      none: '',
      past: undefined,
      before: undefined,
    });
    expect(parts(path, { maxBytes: 11 })).toBeUndefined();
  });

  it('throws only for a missing file; a link not followed, a folder, a FIFO or a device give nothing, without blocking', () => {
    const dir = tempDir();
    expect(() => parts(join(dir, 'missing'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    const target = writeFile(dir, 'target', 'abc-de-fghij');
    symlinkSync(target, join(dir, 'link'));
    mkdirSync(join(dir, 'folder'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    expect(parts(join(dir, 'link'))).toMatchObject({ head: 'abc' });
    for (const path of [join(dir, 'link'), join(dir, 'folder'), join(dir, 'fifo'), '/dev/zero'])
      expect(parts(path, { noFollow: true })).toBeUndefined();
  });
});

describe('what a file that is not a regular file is, in messages', () => {
  it('names each kind of file by its stat', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'folder'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    symlinkSync(join(dir, 'folder'), join(dir, 'link'));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'socket'), resolve));
    try {
      expect(kindOf(statSync(join(dir, 'folder')))).toBe('a directory');
      expect(kindOf(statSync(join(dir, 'fifo')))).toBe('a named pipe (FIFO)');
      expect(kindOf(statSync('/dev/null'))).toBe('a device');
      expect(kindOf(statSync(join(dir, 'socket')))).toBe('a socket');
      expect(kindOf(lstatSync(join(dir, 'link')))).toBe('a special file');
      expect(kindOf(blockDevice)).toBe('a device');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** A block device's stat: not every machine running the tests has one to stat. */
const blockDevice = Object.assign(Object.create(Stats.prototype) as Stats, { mode: constants.S_IFBLK | 0o600 });

function writeFile(dir: string, name: string, text = 'x'): string {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

function loop(dir: string): string {
  symlinkSync(join(dir, 'b'), join(dir, 'a'));
  symlinkSync(join(dir, 'a'), join(dir, 'b'));
  return join(dir, 'a');
}
