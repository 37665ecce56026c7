import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  readFileFrom,
  readFileTail,
  readIdentifiedJsonFile,
  readJsonFile,
  readTextFile,
} from '../../../src/infra/fs/read-json-file.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { openDescriptorsUnder } from './open-descriptors.js';

const team = z.object({ name: z.string(), size: z.number() });
const KEEP_IT = 'fed will not overwrite it; move it aside or restore it from a backup';
const CORRUPT_END = 'fed will not overwrite it; restore it from a backup or fix it by hand.';

function fileWith(text: string): string {
  const file = join(tempDir(), 'team.json');
  writeFileSync(file, text);
  return file;
}

describe('reading a JSON file fed manages', () => {
  it('gives the value its schema parses, and undefined for a missing file', () => {
    expect(readJsonFile(fileWith('{"name":"docs","size":2}'), team)).toEqual({ name: 'docs', size: 2 });
    expect(readJsonFile(join(tempDir(), 'none.json'), team)).toBeUndefined();
  });

  it('text that is not JSON is corrupt, with the line where it breaks', () => {
    const file = fileWith('{\n  "name": "docs",\n  oops\n}');
    expect(() => readJsonFile(file, team)).toThrow(
      expect.objectContaining({
        code: 'FILE_CORRUPT',
        file,
        message: expect.stringMatching(new RegExp(`^${file} is corrupt: not valid JSON at line 3, column \\d+ \\(`)),
      }),
    );
  });

  it('a byte-order mark before the JSON is corrupt, named (it is invisible in an editor) with how to save the file', () => {
    const file = fileWith('\uFEFF{"name":"docs","size":2}');
    expect(() => readJsonFile(file, team)).toThrow(
      `${file} is corrupt: not valid JSON at line 1, column 1 (a byte-order mark (U+FEFF) at the start; save the file as UTF-8 without BOM). ${CORRUPT_END}`,
    );
  });

  it('JSON that is not the format is corrupt, naming every problem and what was found', () => {
    const file = fileWith('{"name":5,"size":"two"}');
    expect(() => readJsonFile(file, team)).toThrow(
      expect.objectContaining({
        code: 'FILE_CORRUPT',
        message: `${file} is corrupt: name: expected a string, got number 5; size: expected a number, got "two". ${CORRUPT_END}`,
      }),
    );
  });

  it('a folder at the path cannot be used: named, with what to do', () => {
    const file = join(tempDir(), 'team.json');
    mkdirSync(file);
    expect(() => readJsonFile(file, team)).toThrow(
      expect.objectContaining({
        code: 'FILE_UNREADABLE',
        message: `${file} cannot be used: a directory, not a regular file; ${KEEP_IT}`,
      }),
    );
  });

  it('what the quick check accepts is taken as it is; what it rejects goes through the schema', () => {
    const stamped = team.transform((value) => ({ ...value, parsed: true }));
    const quick = (value: unknown): value is z.infer<typeof stamped> => (value as { size?: unknown }).size === 1;
    const file = fileWith('{"name":"docs","size":1}');
    expect(readJsonFile(file, stamped, {}, quick)).toEqual({ name: 'docs', size: 1 });
    writeFileSync(file, '{"name":"docs","size":2}');
    expect(readJsonFile(file, stamped, {}, quick)).toEqual({ name: 'docs', size: 2, parsed: true });
  });
});

describe('reading a JSON file with the identity of the file read', () => {
  it('gives the value and the identity of that very file; undefined when missing', () => {
    const file = fileWith('{"name":"docs","size":2}');
    const { ino, size, mtimeNs, ctimeNs } = statSync(file, { bigint: true });
    expect(readIdentifiedJsonFile(file, team)).toEqual({
      value: { name: 'docs', size: 2 },
      identity: `${ino}:${size}:${mtimeNs}:${ctimeNs}`,
    });
    expect(readIdentifiedJsonFile(join(tempDir(), 'none.json'), team)).toBeUndefined();
  });

  it('never reads through a link at the path', () => {
    const real = fileWith('{"name":"docs","size":2}');
    const link = join(tempDir(), 'team.json');
    symlinkSync(real, link);
    expect(() => readIdentifiedJsonFile(link, team)).toThrow(
      expect.objectContaining({
        code: 'FILE_UNREADABLE',
        message: `${link} cannot be used: a symbolic link, not a file; ${KEEP_IT}`,
      }),
    );
  });
});

describe('reading part of a file within a limit', () => {
  it('reads up to exactly the limit from the offset, and refuses one byte more, naming the file and the fix', () => {
    const file = fileWith('first\nsecond\n');
    expect(readFileFrom(file, 6, 'fix it', 7)).toEqual({ bytes: Buffer.from('second\n'), size: 13 });
    expect(() => readFileFrom(file, 6, 'fix it', 6)).toThrow(
      expect.objectContaining({
        code: 'FILE_UNREADABLE',
        message: `${file} cannot be used: 7 bytes to read, over the 6-byte limit; fix it`,
      }),
    );
  });

  it('an offset past the end reads nothing; a tail longer than the file is the whole file', () => {
    const file = fileWith('first\n');
    expect(readFileFrom(file, 100, 'fix')).toEqual({ bytes: Buffer.alloc(0), size: 6 });
    expect(readFileTail(file, 100, 'fix')).toEqual({ tail: Buffer.from('first\n'), size: 6 });
  });

  it('a file that is not there reads as nothing; a file where its folder belongs is named', () => {
    const dir = tempDir();
    expect(readFileTail(join(dir, 'team-activity.jsonl'), 3, 'fix')).toBeUndefined();
    expect(readFileFrom(join(dir, 'missing', 'journal.jsonl'), 0, 'fix')).toBeUndefined();
    writeFileSync(join(dir, 'state'), 'a file');
    expect(() => readFileTail(join(dir, 'state', 'journal.jsonl'), 3, 'fix')).toThrow(
      expect.objectContaining({ code: 'FILE_UNREADABLE', message: expect.stringContaining('(ENOTDIR)') }),
    );
  });

  it('closes the file after a read and after a refusal', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'journal.jsonl'), 'first\n');
    mkdirSync(join(dir, 'folder'));
    readFileTail(join(dir, 'journal.jsonl'), 3, 'fix');
    expect(() => readFileTail(join(dir, 'folder'), 3, 'fix')).toThrow(
      expect.objectContaining({ code: 'FILE_UNREADABLE' }),
    );
    expect(() => readFileFrom(join(dir, 'journal.jsonl'), 0, 'fix', 1)).toThrow(
      expect.objectContaining({ code: 'FILE_UNREADABLE' }),
    );
    expect(openDescriptorsUnder(dir)).toEqual([]);
  });

  it('reads a text file whole', () => {
    expect(readTextFile(fileWith('é\n'), 'fix')).toBe('é\n');
  });
});
