import { closeSync, mkdirSync, readFileSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openForAppend } from '../../../src/infra/fs/open-for-append.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { openDescriptorsUnder } from './open-descriptors.js';

const DEFAULT_FIX = 'remove it (or move it aside); fed creates a new file';

describe('opening a log or journal for appending', () => {
  it('creates the file when missing and appends to it when it exists', () => {
    const log = join(tempDir(), 'agent.log');
    for (const line of ['one\n', 'two\n']) {
      const fd = openForAppend(log);
      writeSync(fd, line);
      closeSync(fd);
    }
    expect(readFileSync(log, 'utf8')).toBe('one\ntwo\n');
  });

  it.each([
    ['a symbolic link', (path: string) => symlinkSync(join(path, '..', 'target'), path)],
    ['a directory', (path: string) => mkdirSync(path)],
  ])('refuses %s at the path, naming it and the default fix', (kind, make) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'target'), 'kept');
    const log = join(dir, 'agent.log');
    make(log);
    expect(() => openForAppend(log)).toThrow(
      expect.objectContaining({
        code: 'FILE_NOT_REGULAR',
        file: log,
        message: `${log} is ${kind}, not a regular file; fed does not write through it. ${DEFAULT_FIX}`,
      }),
    );
    expect(readFileSync(join(dir, 'target'), 'utf8')).toBe('kept');
  });

  it('refuses a device it could open, and closes it again', () => {
    const before = openDescriptorsUnder('/dev/null').length;
    expect(() => openForAppend('/dev/null', 'use a file')).toThrow(
      expect.objectContaining({
        code: 'FILE_NOT_REGULAR',
        message: '/dev/null is a device, not a regular file; fed does not write through it. use a file',
      }),
    );
    expect(openDescriptorsUnder('/dev/null')).toHaveLength(before);
  });

  it.each([
    [
      'a path through a file',
      'ENOTDIR',
      (dir: string) => (writeFileSync(join(dir, 'file'), 'x'), join(dir, 'file', 'a.log')),
    ],
    ['a missing folder', 'ENOENT', (dir: string) => join(dir, 'gone', 'a.log')],
  ])('passes on any other failure to open (%s) as it is', (_, code, make) => {
    expect(() => openForAppend(make(tempDir()))).toThrow(expect.objectContaining({ code, syscall: 'open' }));
  });
});
