import { describe, expect, it } from 'vitest';
import { nodeSupportWarnings } from '../../../src/apps/doctor/node-support-check.js';

describe('fed doctor on the Node it runs on: a line past its end of life is warned about', () => {
  it('warns on a line past its end, naming the LTS lines still supported that day, newest first', () => {
    expect(nodeSupportWarnings('v20.20.2', new Date('2026-11-25T12:00:00Z'))).toEqual([
      'Node 20.20.2 is past its end of life (2026-04-30): it gets no more security fixes. fed is tested on Node 20, 22, 24, 26; move to a supported LTS line (26, 24, 22)',
    ]);
    // An odd line ends after six months, and is never a line to move to.
    expect(nodeSupportWarnings('v25.9.0', new Date('2026-11-25'))).toEqual([
      expect.stringMatching(/^Node 25\.9\.0 is past its end of life \(2026-06-01\): .*\(26, 24, 22\)$/),
    ]);
  });

  it('says nothing on a line still supported (up to its end date), or on one the schedule does not know', () => {
    expect(nodeSupportWarnings('v26.10.0', new Date('2026-11-25'))).toEqual([]);
    expect(nodeSupportWarnings('v22.23.3', new Date('2026-11-25'))).toEqual([]);
    expect(nodeSupportWarnings('v20.20.2', new Date('2026-04-29T23:59:59Z'))).toEqual([]);
    expect(nodeSupportWarnings('v99.0.0', new Date('2026-11-25'))).toEqual([]);
  });

  it('reads the schedule it is given, and names no line to move to when none is supported', () => {
    const schedule = { v20: { end: '2026-04-30', lts: '2023-10-24' } };
    expect(nodeSupportWarnings('v20.1.0', new Date('2027-01-01'), schedule)).toEqual([
      'Node 20.1.0 is past its end of life (2026-04-30): it gets no more security fixes. fed is tested on Node 20, 22, 24, 26; move to a supported LTS line',
    ]);
  });
});
