import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listDirectory } from '../../../src/infra/fs/list-directory.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('listing a folder made on first use', () => {
  it('lists the names in it', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.json'), '{}');
    mkdirSync(join(dir, 'sub'));
    expect(listDirectory(dir).sort()).toEqual(['a.json', 'sub']);
  });

  it('a folder not made yet is empty', () => {
    expect(listDirectory(join(tempDir(), 'inbox'))).toEqual([]);
  });

  it('a file where the folder belongs is an error, not an empty folder', () => {
    const file = join(tempDir(), 'inbox');
    writeFileSync(file, 'x');
    expect(() => listDirectory(file)).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });
});
