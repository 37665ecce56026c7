import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendJsonLine } from '../../../src/infra/fs/append-line.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { openDescriptorsUnder } from './open-descriptors.js';

const FIX = 'move it aside; fed starts a new journal';

describe('appending a JSON line to a journal', () => {
  it('makes the folder, appends one whole line per call, and returns the size after the line', () => {
    const dir = tempDir();
    const journal = join(dir, 'logs', 'runs.jsonl');
    expect(appendJsonLine(journal, { n: 1 }, { durable: false })).toBe(8);
    expect(appendJsonLine(journal, { n: 2, text: 'é' }, { durable: false })).toBe(8 + 20);
    expect(readFileSync(journal, 'utf8')).toBe('{"n":1}\n{"n":2,"text":"é"}\n');
    expect(openDescriptorsUnder(dir)).toEqual([]);
  });

  it.each([
    ['an empty journal', '', '{"n":1}\n'],
    ['a journal whose last line is whole', '{"n":0}\n', '{"n":0}\n{"n":1}\n'],
    ['a journal holding only a newline', '\n', '\n{"n":1}\n'],
    ['a journal torn by a crash mid-line', '{"n":0', '{"n":0\n{"n":1}\n'],
  ])('after %s, the line starts a line of its own', (_, before, after) => {
    const journal = join(tempDir(), 'runs.jsonl');
    writeFileSync(journal, before);
    appendJsonLine(journal, { n: 1 }, { durable: false });
    expect(readFileSync(journal, 'utf8')).toBe(after);
  });

  it('refuses a link at the path, never appending to the file it points at', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'codebase.ts'), 'export {};\n');
    const journal = join(dir, 'runs.jsonl');
    symlinkSync(join(dir, 'codebase.ts'), journal);
    expect(() => appendJsonLine(journal, { n: 1 }, { durable: false })).toThrow(
      expect.objectContaining({
        code: 'FILE_NOT_REGULAR',
        message: `${journal} is a symbolic link, not a regular file; fed does not write through it. ${FIX}`,
      }),
    );
    expect(readFileSync(join(dir, 'codebase.ts'), 'utf8')).toBe('export {};\n');
  });

  it('refuses a directory at the path, naming it and what to do', () => {
    const journal = join(tempDir(), 'runs.jsonl');
    mkdirSync(journal);
    expect(() => appendJsonLine(journal, { n: 1 }, { durable: false })).toThrow(
      expect.objectContaining({
        code: 'FILE_UNREADABLE',
        message: `${journal} cannot be used: a directory, not a regular file; ${FIX}`,
      }),
    );
  });
});
