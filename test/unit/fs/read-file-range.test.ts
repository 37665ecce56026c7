import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFileFrom, readFileTail } from 'fed/testing';
import { tempDir } from '../../helpers/temp-dir.js';

describe('reading part of a file (a journal read from an offset, a log from its end)', () => {
  it('reads from an offset and from the end; a missing file is undefined', () => {
    const file = join(tempDir(), 'journal.jsonl');
    writeFileSync(file, 'first\nsecond\n');
    expect(readFileFrom(file, 6, 'fix')).toEqual({ bytes: Buffer.from('second\n'), size: 13 });
    expect(readFileTail(file, 3, 'fix')).toEqual({ tail: Buffer.from('nd\n'), size: 13 });
    expect(readFileFrom(join(tempDir(), 'none'), 0, 'fix')).toBeUndefined();
  });

  it('a file that cannot be opened or is not a file is an UnreadableFileError naming it and the fix', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'logs'), 'a file where a folder should be');
    const under = join(dir, 'logs', 'runs.jsonl');
    expect(() => readFileFrom(under, 0, 'move it aside')).toThrow(
      expect.objectContaining({ code: 'FILE_UNREADABLE', file: under, message: expect.stringContaining('ENOTDIR') }),
    );
    mkdirSync(join(dir, 'folder'));
    expect(() => readFileTail(join(dir, 'folder'), 1, 'move it aside')).toThrow(
      expect.objectContaining({ file: join(dir, 'folder'), message: expect.stringContaining('a directory') }),
    );
  });
});
