import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * The fault paths of the filesystem layer that real files cannot take a root user down on a healthy disk:
 * a disk that fails a write, a filesystem without hard links, a read-only filesystem, a read or close that
 * fails, a read that returns less than asked, a file that changes size between its fstat and its read.
 */
vi.mock('node:fs', async (importOriginal) => (await import('./fs-faults.js')).faultyFs(await importOriginal()));

const { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } = await import('node:fs');
const { join } = await import('node:path');
const { userInfo } = await import('node:os');
const { errnoError, hooks, pathOf, resetFaults } = await import('./fs-faults.js');
const { createFileExclusive, writeFileAtomic } = await import('fed/testing');
const { ensureDirectory } = await import('fed/testing');
const { readFileBounded } = await import('fed/testing');
const { readFileFrom, readFileTail, readTextFile } = await import('fed/testing');
const { tempDir } = await import('../../helpers/temp-dir.js');
const { openDescriptorsUnder } = await import('./open-descriptors.js');

afterEach(resetFaults);

/** Make `call` throw `error` for descriptors open on `file` (or on any path when `file` is undefined). */
function failOn(call: 'readSync' | 'writeSync' | 'fsyncSync' | 'closeSync', error: unknown, file?: string): void {
  hooks[call] = (real, fd, ...rest) => {
    if (file === undefined || pathOf(fd) === file) {
      // A close that fails has still released the descriptor (close(2) never leaves it open).
      if (call === 'closeSync') real(fd);
      throw error;
    }
    return real(fd, ...rest);
  };
}

/** Make fstat of `file` report `size`, as if the file changed size between the fstat and the read. */
function reportSize(file: string, size: number): void {
  hooks.fstatSync = (real, fd, ...rest) => {
    const stat = real(fd, ...rest) as { size: number };
    if (pathOf(fd) === file) stat.size = size;
    return stat;
  };
}

/** Record how many bytes each read of `file` asks for, each read returning at most `chunk` of them. */
function readsOf(file: string, chunk = Number.POSITIVE_INFINITY): number[] {
  const asked: number[] = [];
  hooks.readSync = (real, fd, buffer, offset, length, position) => {
    if (pathOf(fd) !== file) return real(fd, buffer, offset, length, position);
    asked.push(length as number);
    return real(fd, buffer, offset, Math.min(length as number, chunk), position);
  };
  return asked;
}

describe('a write that fails', () => {
  it('a disk full mid-write leaves the old file, no temp file and no open descriptor; the error names the target', () => {
    const dir = tempDir();
    const target = join(dir, 'state.json');
    writeFileAtomic(target, 'old');
    failOn('writeSync', errnoError('ENOSPC', 'write'));
    expect(() => writeFileAtomic(target, 'new')).toThrow(expect.objectContaining({ code: 'ENOSPC', path: target }));
    expect(readdirSync(dir)).toEqual(['state.json']);
    expect(readFileSync(target, 'utf8')).toBe('old');
    expect(openDescriptorsUnder(dir)).toEqual([]);
  });

  it('an fsync that fails closes and removes the temp file', () => {
    const dir = tempDir();
    failOn('fsyncSync', errnoError('EIO', 'fsync'));
    expect(() => writeFileAtomic(join(dir, 'state.json'), 'new')).toThrow(expect.objectContaining({ code: 'EIO' }));
    expect(readdirSync(dir)).toEqual([]);
    expect(openDescriptorsUnder(dir)).toEqual([]);
  });

  it('an error that already names its file keeps that name', () => {
    const dir = tempDir();
    failOn('fsyncSync', errnoError('EIO', 'fsync', '/dev/sdz'));
    expect(() => writeFileAtomic(join(dir, 'state.json'), 'new')).toThrow(
      expect.objectContaining({ code: 'EIO', path: '/dev/sdz' }),
    );
  });

  it('a thrown value that is not an Error is passed on as it is', () => {
    const dir = tempDir();
    failOn('fsyncSync', 'a bare string');
    expect(() => writeFileAtomic(join(dir, 'state.json'), 'new')).toThrow('a bare string');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a filesystem without hard links (EPERM) makes an exclusive create fail, not report "exists"', () => {
    const dir = tempDir();
    hooks.linkSync = () => {
      throw errnoError('EPERM', 'link');
    };
    expect(() => createFileExclusive(join(dir, 'seed.json'), 'x')).toThrow(expect.objectContaining({ code: 'EPERM' }));
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('a directory that cannot be made', () => {
  /** Node's recursive mkdir says ENOENT for any level it cannot make; a plain mkdir says why. */
  function readOnlyBelow(dir: string, plainError: (path: string) => unknown): void {
    hooks.mkdirSync = (real, path, options) => {
      if (!String(path).startsWith(`${dir}/`)) return real(path, options);
      if ((options as { recursive?: boolean } | undefined)?.recursive)
        throw errnoError('ENOENT', 'mkdir', String(path));
      const error = plainError(String(path));
      if (error) throw error;
      return real(path, options);
    };
  }

  it('names the real reason (a read-only filesystem) and the first level that could not be made', () => {
    const dir = tempDir();
    readOnlyBelow(dir, (path) => errnoError('EROFS', 'mkdir', path));
    expect(() => ensureDirectory(join(dir, 'a', 'b', 'c'))).toThrow(
      expect.objectContaining({ code: 'EROFS', path: join(dir, 'a') }),
    );
  });

  it('keeps the first error when that level could be made after all (made by someone else meanwhile)', () => {
    const dir = tempDir();
    readOnlyBelow(dir, () => undefined);
    expect(() => ensureDirectory(join(dir, 'a', 'b'))).toThrow(
      expect.objectContaining({ code: 'ENOENT', path: join(dir, 'a', 'b') }),
    );
    expect(statSync(join(dir, 'a')).isDirectory()).toBe(true);
  });
});

describe('a bounded read that fails or meets a changing file', () => {
  it.each([
    ['an errno', errnoError('EIO', 'read'), { problem: 'cannot be read (EIO)', code: 'EIO' }],
    ['no code', new Error('boom'), { problem: 'cannot be read (boom)', code: undefined }],
  ])('a read that fails with %s is a result naming it, and the file is closed', (_, error, expected) => {
    const dir = tempDir();
    const file = join(dir, 'a.json');
    writeFileSync(file, '{}');
    failOn('readSync', error, file);
    expect(readFileBounded(file)).toEqual({ ok: false, ...expected });
    expect(openDescriptorsUnder(dir)).toEqual([]);
  });

  it('an open that fails without a code is a result with its message', () => {
    const file = join(tempDir(), 'a.json');
    hooks.openSync = () => {
      throw new Error('boom');
    };
    expect(readFileBounded(file)).toEqual({ ok: false, problem: 'cannot be read (boom)', code: undefined });
  });

  it('a file of known size is read in one read of one byte more than its size', () => {
    const file = join(tempDir(), 'a.json');
    writeFileSync(file, 'x'.repeat(100));
    const asked = readsOf(file);
    expect(readFileBounded(file)).toMatchObject({ ok: true, bytes: Buffer.from('x'.repeat(100)) });
    expect(asked).toEqual([101]);
  });

  it('a file that grew after its fstat is read no further than one byte past the size seen', () => {
    const file = join(tempDir(), 'a.json');
    writeFileSync(file, 'x'.repeat(20));
    reportSize(file, 5);
    const asked = readsOf(file);
    expect(readFileBounded(file, { maxBytes: 100 }).ok).toBe(true);
    expect(asked).toEqual([6]);
  });

  it('a file that grew over the limit after its fstat is refused, saying it grew', () => {
    const file = join(tempDir(), 'a.json');
    writeFileSync(file, 'x'.repeat(11));
    reportSize(file, 10);
    expect(readFileBounded(file, { maxBytes: 10 })).toMatchObject({
      ok: false,
      problem: 'the file grew over the 10-byte limit while it was read',
    });
  });

  it('a file of unknown size (fstat says 0, as procfs does) is read to its end in chunks, however short the reads', () => {
    const file = join(tempDir(), 'a.json');
    const text = 'abcdefghij'.repeat(1_000);
    writeFileSync(file, text);
    reportSize(file, 0);
    const asked = readsOf(file, 1_000);
    const read = readFileBounded(file, { maxBytes: 20_000 });
    expect(read.ok && read.bytes.toString('utf8')).toBe(text);
    // Chunks of 4 KiB (one byte more), growing by doubling, each read asking for what the buffer has left.
    expect(asked).toEqual([4097, 3097, 2097, 1097, 97, 4097, 3097, 2097, 1097, 97, 8194, 7194, 6388]);
  });

  it('a file of unknown size grows its buffer up to one byte past the limit, and is refused when it has more', () => {
    const file = join(tempDir(), 'a.json');
    writeFileSync(file, 'x'.repeat(20));
    reportSize(file, 0);
    const asked = readsOf(file, 5);
    expect(readFileBounded(file, { maxBytes: 10 })).toMatchObject({
      ok: false,
      problem: 'the file is over the 10-byte limit',
    });
    expect(asked).toEqual([11, 6, 1]);
  });

  it('a file of unknown size stops growing its buffer at one byte past the limit, and is refused over it', () => {
    const file = join(tempDir(), 'a.json');
    writeFileSync(file, 'x'.repeat(10_000));
    reportSize(file, 0);
    const asked = readsOf(file, 1_000);
    expect(readFileBounded(file, { maxBytes: 6_000 })).toMatchObject({
      ok: false,
      problem: 'the file is over the 6000-byte limit',
    });
    expect(asked).toEqual([4097, 3097, 2097, 1097, 97, 1904, 904]);
  });

  it('a file of unknown size exactly at the limit is read whole', () => {
    const file = join(tempDir(), 'a.json');
    writeFileSync(file, 'x'.repeat(10));
    reportSize(file, 0);
    const asked = readsOf(file, 5);
    expect(readFileBounded(file, { maxBytes: 10 })).toMatchObject({ ok: true, bytes: Buffer.from('x'.repeat(10)) });
    expect(asked).toEqual([11, 6, 1]);
  });
});

describe('reading part of a file when reads are short or the file changed', () => {
  it('reads the range whole however short each read is', () => {
    const file = join(tempDir(), 'journal.jsonl');
    writeFileSync(file, 'first\nsecond\nthird\n');
    const asked = readsOf(file, 3);
    expect(readFileFrom(file, 6, 'fix')).toEqual({ bytes: Buffer.from('second\nthird\n'), size: 19 });
    expect(asked).toEqual([13, 10, 7, 4, 1]);
  });

  it('a file that shrank after its fstat gives what is there, with the size seen', () => {
    const file = join(tempDir(), 'journal.jsonl');
    writeFileSync(file, 'first\n');
    reportSize(file, 20);
    expect(readFileFrom(file, 0, 'fix')).toEqual({ bytes: Buffer.from('first\n'), size: 20 });
  });

  it('an open that fails without a code is thrown as it is', () => {
    const file = join(tempDir(), 'journal.jsonl');
    const error = new Error('boom');
    hooks.openSync = () => {
      throw error;
    };
    expect(() => readFileTail(file, 1, 'fix')).toThrow(error);
  });
});

describe('a file fed may not open', () => {
  /** Make opening `file` fail with `code`, as open(2) does for a file of another user (EACCES). */
  function refuseOpen(file: string, code: string): void {
    hooks.openSync = (real, path, ...rest) => {
      if (path === file) throw errnoError(code, 'open', file);
      return real(path, ...rest);
    };
  }

  it.each(['EACCES', 'EPERM'])(
    "%s: the fix is its permissions, for the user fed runs as, never the caller's advice about its content",
    (code) => {
      const file = join(tempDir(), 'registry.json');
      writeFileSync(file, '{}');
      refuseOpen(file, code);
      const user = userInfo().username;
      const message =
        `${file} cannot be used: cannot be read (${code}); give ${user}, the user fed runs as, read access to it: ` +
        `chmod or chown it (or a folder above it that ${user} cannot enter), or run fed as a user who can read it`;
      const unreadable = expect.objectContaining({ code: 'FILE_UNREADABLE', message });
      expect(() => readTextFile(file, 'restore it from a backup')).toThrow(unreadable);
      expect(() => readFileTail(file, 1, 'restore it from a backup')).toThrow(unreadable);
    },
  );

  it("any other errno keeps the caller's fix", () => {
    const file = join(tempDir(), 'registry.json');
    refuseOpen(file, 'ENOTDIR');
    for (const read of [() => readTextFile(file, 'restore it'), () => readFileTail(file, 1, 'restore it')])
      expect(read).toThrow(
        expect.objectContaining({ message: `${file} cannot be used: cannot be read (ENOTDIR); restore it` }),
      );
  });
});

describe('a close that fails after a read', () => {
  it('is thrown, never taken for a missing file', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'teams'));
    const file = join(dir, 'teams', 'registry.json');
    writeFileSync(file, '{}');
    failOn('closeSync', errnoError('EIO', 'close'), file);
    expect(() => readTextFile(file, 'fix')).toThrow(expect.objectContaining({ code: 'EIO' }));
  });
});
