import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvePath } from '../../../src/infra/fs/resolve-path.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A folder `real` and a link `linked` to it. */
function linkedFolder(): { dir: string; real: string; linked: string } {
  const dir = tempDir();
  mkdirSync(join(dir, 'real'));
  symlinkSync(join(dir, 'real'), join(dir, 'linked'));
  return { dir, real: join(dir, 'real'), linked: join(dir, 'linked') };
}

describe('where a path really is', () => {
  it('an existing path is resolved through its links', () => {
    const { real, linked } = linkedFolder();
    mkdirSync(join(real, 'teams'));
    expect(resolvePath(join(linked, 'teams'))).toEqual({ real: join(real, 'teams'), exists: true });
  });

  it('a missing path is its nearest existing folder, resolved, with the rest appended', () => {
    const { real, linked } = linkedFolder();
    expect(resolvePath(join(linked, 'a', 'b'))).toEqual({ real: join(real, 'a', 'b'), exists: false });
  });

  it('a path through a file is not there: the file’s folder, resolved, with the rest appended', () => {
    const { real, linked } = linkedFolder();
    writeFileSync(join(real, 'file'), 'x');
    expect(resolvePath(join(linked, 'file', 'x'))).toEqual({ real: join(real, 'file', 'x'), exists: false });
  });

  it('a file where the folder belongs is not there (the mkdir that follows names it)', () => {
    const { real, linked } = linkedFolder();
    writeFileSync(join(real, 'file'), 'x');
    expect(resolvePath(join(linked, 'file'))).toEqual({ real: join(real, 'file'), exists: false });
  });

  it('a link to nowhere on the way up is reported (a mkdir there would follow it)', () => {
    const dir = tempDir();
    symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
    expect(resolvePath(join(dir, 'dangling', 'sub'))).toEqual({
      real: join(dir, 'dangling'),
      exists: false,
      danglingLink: join(dir, 'dangling'),
    });
  });

  it('a link loop is an error, not a missing path', () => {
    const dir = tempDir();
    symlinkSync(join(dir, 'b'), join(dir, 'a'));
    symlinkSync(join(dir, 'a'), join(dir, 'b'));
    expect(() => resolvePath(join(dir, 'a', 'x'))).toThrow(expect.objectContaining({ code: 'ELOOP' }));
  });

  it('a missing relative path is resolved from the working directory', () => {
    expect(resolvePath('no-such-folder-here/x')).toEqual({
      real: join(realpathSync(process.cwd()), 'no-such-folder-here', 'x'),
      exists: false,
    });
  });
});
