import { describe, expect, it } from 'vitest';
import { renderFields, renderTable } from '../../../src/core/table.js';

describe('renderTable', () => {
  it('aligns columns on the widest cell, header included', () => {
    expect(
      renderTable(
        ['ID', 'SUBJECT'],
        [
          ['a', 'x'],
          ['longer', 'y'],
        ],
      ),
    ).toBe('ID      SUBJECT\na       x\nlonger  y\n');
  });

  it('renders 200 000 rows (a spread of that many cells would overflow the stack)', () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => [String(i), 'subject']);
    const text = renderTable(['N', 'SUBJECT'], rows);
    expect(text.split('\n')).toHaveLength(200_002);
    expect(text.startsWith('N       SUBJECT\n0       subject\n')).toBe(true);
  });
});

describe('renderFields', () => {
  it('aligns the values after the longest key', () => {
    expect(
      renderFields([
        ['id', 'docs'],
        ['status', 'active'],
      ]),
    ).toBe('id:     docs\nstatus: active\n');
  });
});
