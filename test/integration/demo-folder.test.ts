import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fedInProcess } from '../helpers/fed-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('fed demo --dir', () => {
  it("refuses a folder that is not empty — a project's files, a federation — before writing anything (exit 2)", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'README.md'), 'MY README\n');
    writeFileSync(join(dir, 'package.json'), '{"name":"mine"}\n');
    const result = await fedInProcess(['demo', '--dir', dir], tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--dir ${dir} is not empty (README.md, package.json)`);
    expect(result.stderr).toContain('give a new or empty folder');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(dir).sort()).toEqual(['README.md', 'package.json']);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('MY README\n');
  });

  it('refuses a path that is a file, and one under a file, saying it is not a folder (exit 2)', async () => {
    const file = join(tempDir(), 'notes.txt');
    writeFileSync(file, 'keep me\n');
    for (const dir of [file, join(file, 'demo')]) {
      const result = await fedInProcess(['demo', '--dir', dir], tempDir());
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--dir .*: (not a folder|cannot be used \(\w+\)); give a new or empty folder/);
    }
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
  });

  it('takes an empty folder, and makes a missing one', async () => {
    const empty = tempDir();
    const missing = join(tempDir(), 'a', 'b');
    mkdirSync(empty, { recursive: true });
    for (const dir of [empty, missing]) {
      const result = await fedInProcess(['demo', '--dir', dir], tempDir());
      expect(result, result.stderr).toMatchObject({ code: 0 });
      expect(readdirSync(dir)).toEqual(expect.arrayContaining(['README.md', 'packages', '.fed']));
    }
  }, 120_000);
});
