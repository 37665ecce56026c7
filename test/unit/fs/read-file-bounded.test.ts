import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readFileBounded } from '../../../src/infra/fs/read-json-file.js';

const PROC_VERSION = '/proc/version';

/** Files whose size is not known in advance (procfs reports 0) are read to their end, within the bound. */
describe.skipIf(!existsSync(PROC_VERSION))('readFileBounded on a file that reports size 0', () => {
  it('reads /proc/version to its end, not one byte', () => {
    const read = readFileBounded(PROC_VERSION, { maxBytes: 1024 * 1024 });
    expect(read.ok).toBe(true);
    if (read.ok) expect(read.bytes.toString('utf8')).toBe(readFileSync(PROC_VERSION, 'utf8'));
  });

  it('refuses it when its content is over the limit', () => {
    const read = readFileBounded(PROC_VERSION, { maxBytes: 4 });
    expect(read).toMatchObject({ ok: false, problem: expect.stringMatching(/over the 4-byte limit/) });
  });
});
