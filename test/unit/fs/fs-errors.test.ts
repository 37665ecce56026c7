import { describe, expect, it } from 'vitest';
import { FileSystemError } from '../../../src/core/errors.js';
import { fileSystemErrorFor } from '../../../src/infra/fs/fs-errors.js';

/** A raw error as node:fs throws it. */
function errno(code: string, fields: { path?: string; dest?: string; syscall?: string } = {}): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: raw message`), { code, ...fields });
}

/**
 * Every errno fed explains, as the CLI prints it: what happened and what to do, and whether it is the user's
 * layout (a refusal, exit 2) or the environment failing (exit 1).
 */
const EXPLAINED: [code: string, what: string, fix: string, refusal: boolean][] = [
  ['ENOSPC', 'the disk is full', 'free some space on that filesystem and run the command again', false],
  ['EDQUOT', 'the disk quota is exhausted', 'free some space or raise the quota and run the command again', false],
  [
    'EROFS',
    'the filesystem is read-only',
    'remount it read-write (or run fed where it can write) and run the command again',
    false,
  ],
  ['EMFILE', 'this process has too many open files', 'raise the limit (ulimit -n) and run the command again', false],
  [
    'ENFILE',
    'the system has too many open files',
    'close other programs or raise fs.file-max and run the command again',
    false,
  ],
  ['EIO', 'the disk reported an I/O error', 'check the disk (dmesg) and run the command again', false],
  ['EISDIR', 'it is a directory where fed expects a file', 'move the directory aside', true],
  ['ENOTDIR', 'a part of it is a file where fed expects a directory', 'move that file aside', true],
  ['EACCES', 'permission denied', 'give the user running fed access to it', true],
  ['EPERM', 'the operation is not permitted', 'give the user running fed access to it', true],
  [
    'ELOOP',
    'it is a symbolic link loop (or a link where fed refuses one)',
    'replace the link by a real file or folder',
    true,
  ],
  ['ENAMETOOLONG', 'the path is too long', 'use a shorter path', true],
];

describe('explaining a raw filesystem error to the user', () => {
  it.each(EXPLAINED)('%s says what happened, what to do, and whether it is a refusal', (code, what, fix, refusal) => {
    const raw = errno(code, { path: '/fed/registry.json', syscall: 'open' });
    const explained = fileSystemErrorFor(raw);
    expect(explained).toBeInstanceOf(FileSystemError);
    expect(explained).toMatchObject({
      code: `FS_${code}`,
      errno: code,
      path: '/fed/registry.json',
      refusal,
      cause: raw,
      message: `/fed/registry.json: ${what} (open) [${code}]; ${fix}`,
    });
  });

  it.each([
    ['a path and a destination (rename, link)', { path: '/a', dest: '/b', syscall: 'rename' }, '/a → /b', ' (rename)'],
    ['a path and no syscall', { path: '/a' }, '/a', ''],
    ['no path (a write to a descriptor)', { syscall: 'write' }, 'a file fed needed', ' (write)'],
    ['no path and no syscall', {}, 'a file fed needed', ''],
  ])('names where and during which call it happened from what the error carries: %s', (_, fields, where, during) => {
    expect(fileSystemErrorFor(errno('EIO', fields))?.message).toBe(
      `${where}: the disk reported an I/O error${during} [EIO]; check the disk (dmesg) and run the command again`,
    );
  });

  it.each([
    ['an errno fed does not explain', errno('ENOENT', { path: '/a', syscall: 'open' })],
    ['an error without a code', new Error('something else')],
    ['a name inherited by every object, as a code', errno('toString')],
    ['a value that is not an Error, even with a known code', { code: 'EIO', path: '/a', message: 'EIO' }],
    ['a string', 'EIO'],
    ['nothing', undefined],
  ])('leaves %s to the caller (undefined)', (_, error) => {
    expect(fileSystemErrorFor(error)).toBeUndefined();
  });
});
