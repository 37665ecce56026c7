import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureDirectory } from '../../../src/infra/fs/ensure-directory.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('making a directory and the ones above it', () => {
  it('makes every missing level, and is content with one that exists', () => {
    const dir = tempDir();
    ensureDirectory(join(dir, 'a', 'b', 'c'));
    ensureDirectory(join(dir, 'a', 'b', 'c'));
    expect(statSync(join(dir, 'a', 'b', 'c')).isDirectory()).toBe(true);
  });

  it('a file with the directory’s name is ENOTDIR naming the directory (recursive mkdir says EEXIST)', () => {
    const dir = tempDir();
    const inbox = join(dir, 'inbox');
    writeFileSync(inbox, 'x');
    let thrown: unknown;
    try {
      ensureDirectory(inbox);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).toMatchObject({
      message: `ENOTDIR: not a directory, mkdir '${inbox}'`,
      code: 'ENOTDIR',
      syscall: 'mkdir',
      path: inbox,
      cause: expect.objectContaining({ code: 'EEXIST' }),
    });
  });

  it('a file on the way is ENOTDIR as mkdir says it, naming the directory asked for', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), 'x');
    const asked = join(dir, 'file', 'a', 'b');
    expect(() => ensureDirectory(asked)).toThrow(
      expect.objectContaining({ code: 'ENOTDIR', syscall: 'mkdir', path: asked }),
    );
  });

  it('leaves an existing directory as it is', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'a'));
    writeFileSync(join(dir, 'a', 'kept'), 'x');
    ensureDirectory(join(dir, 'a'));
    expect(statSync(join(dir, 'a', 'kept')).isFile()).toBe(true);
  });
});
