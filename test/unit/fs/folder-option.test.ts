import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileInTheWay, refuseFileForFolder } from '../../../src/infra/fs/folder-option.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('a file where a folder given in an option would be', () => {
  it('none for a folder, a link to one, or a path still to be made below them', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'linked'));
    for (const path of [dir, join(dir, 'linked'), join(dir, 'new', 'deeper'), join(dir, 'linked', 'new')])
      expect(fileInTheWay(path), path).toBeUndefined();
  });

  it('the file itself, a link to one, or the file a path runs through', () => {
    const dir = tempDir();
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'mine');
    symlinkSync(file, join(dir, 'link'));
    expect(fileInTheWay(file)).toBe(file);
    expect(fileInTheWay(join(dir, 'link'))).toBe(join(dir, 'link'));
    expect(fileInTheWay(join(file, 'a', 'b'))).toBe(file);
  });

  it('refused as the option, naming the path, the file and the fix', () => {
    const dir = tempDir();
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'mine');
    expect(() => refuseFileForFolder(dir, '--out', 'give a folder')).not.toThrow();
    expect(() => refuseFileForFolder(file, '--out', 'give a folder')).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        message: `--out ${file} names a file, not a folder; give a folder`,
      }),
    );
    expect(() => refuseFileForFolder(join(file, 'x'), '--root', 'give one')).toThrow(
      expect.objectContaining({ message: `--root ${join(file, 'x')}: ${file} is a file, not a folder; give one` }),
    );
  });
});
