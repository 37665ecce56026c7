import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readFileBounded } from '../../../src/infra/fs/read-file-bounded.js';
import { skipWithout } from '../../helpers/loud-skip.js';

const PROC_VERSION = '/proc/version';

/** Files whose size is not known in advance (procfs reports 0) are read to their end, within the bound. */
const SUITE = 'readFileBounded on a file that reports size 0';
describe.skipIf(skipWithout(SUITE, existsSync(PROC_VERSION) ? undefined : `${PROC_VERSION} is missing (no procfs)`))(
  SUITE,
  () => {
    it('reads /proc/version to its end, not one byte', () => {
      const read = readFileBounded(PROC_VERSION, { maxBytes: 1024 * 1024 });
      expect(read.ok).toBe(true);
      if (read.ok) expect(read.bytes.toString('utf8')).toBe(readFileSync(PROC_VERSION, 'utf8'));
    });

    it('reads one of several pages to its end too (/proc/self/maps), in growing chunks', () => {
      const read = readFileBounded('/proc/self/maps', { maxBytes: 1024 * 1024 });
      expect(read.ok).toBe(true);
      if (!read.ok) return;
      const text = read.bytes.toString('utf8');
      expect(text.length).toBeGreaterThan(4096);
      expect(text.endsWith('\n')).toBe(true);
      expect(
        text
          .split('\n')
          .slice(0, -1)
          .every((line) => /^[0-9a-f]+-[0-9a-f]+ /.test(line)),
      ).toBe(true);
    });

    it('refuses it when its content is over the limit', () => {
      const read = readFileBounded(PROC_VERSION, { maxBytes: 4 });
      expect(read).toMatchObject({ ok: false, problem: expect.stringMatching(/over the 4-byte limit/) });
    });
  },
);
