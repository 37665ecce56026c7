import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeCensus } from '../../../src/adapters/file/box-census.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A box holding `names`, each an empty file (the census reads names only). */
function box(names: readonly string[]): string {
  const dir = join(tempDir(), 'inbox');
  mkdirSync(dir);
  for (const name of names) writeFileSync(join(dir, name), '');
  return dir;
}

describe('the census of a box, from its names', () => {
  it('pairs each signal with its own ack only, whatever lies between them in order', () => {
    const a = '2026-01-01T000000Z-report-a.json';
    const a2 = '2026-01-01T000000Z-report-a-2.json';
    const b = '2026-01-01T000001Z-question-b.json';
    const c = '2026-01-01T000002Z-directive-c.json';
    const census = takeCensus(
      box([
        c,
        `${c}.ack`,
        b,
        // Names that sort between a signal and its ack, none of them its ack.
        `${b}.a`,
        `${b}.aa`,
        `${b}.ac`,
        a,
        a2,
        `${a2}.ack`,
        // An ack without its signal, a temp file, and files that are not signals.
        '2026-01-01T000003Z-report-gone.json.ack',
        `.${a}.123.abcdef012345.tmp`,
        'notes.txt',
      ]),
    );
    expect(census.signals).toEqual([a2, a, b, c]);
    expect(census.acknowledged).toEqual([true, false, false, true]);
    expect(census.unacknowledged).toBe(2);
  });

  it('an empty or missing box has no signals', () => {
    expect(takeCensus(box([]))).toEqual({ signals: [], acknowledged: [], unacknowledged: 0 });
    expect(takeCensus(join(tempDir(), 'missing'))).toEqual({ signals: [], acknowledged: [], unacknowledged: 0 });
  });
});
