import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ackFileName,
  censusOfBoxes,
  deadlineTable,
  META,
  signalFileName,
  type SignalType,
  workspacePaths,
} from 'fed/testing';
import { stuckCandidatesOfCensus } from '../../../src/adapters/file/signals/stuck-candidates.js';
import { tempDir } from '../../helpers/temp-dir.js';

afterEach(() => vi.restoreAllMocks());

/**
 * The stuck-signal candidates are picked from the census's names, in every monitoring cycle, for every
 * signal of every inbox: the type in a name is looked at first, and the time in it is parsed only for a
 * signal that can be overdue — not acknowledged (or a question), of a type with a deadline.
 */
describe('stuck-signal candidates of a census', () => {
  it('parses the time of no name that cannot be overdue, and picks the overdue ones', () => {
    const root = tempDir();
    const { inbox } = workspacePaths(root);
    mkdirSync(inbox, { recursive: true });
    const put = (second: number, type: SignalType, acknowledged: boolean) => {
      const name = signalFileName({
        timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
        type,
        subject: `${type} ${second}`,
      });
      writeFileSync(join(inbox, name), '{}');
      if (acknowledged) writeFileSync(join(inbox, ackFileName(name)), '{}');
      return name;
    };
    // 40 that cannot be overdue: reports (no deadline), acknowledged or not, and acknowledged directives.
    for (let i = 0; i < 20; i++) put(i, 'report', i % 2 === 0);
    for (let i = 20; i < 40; i++) put(i, 'directive', true);
    // 3 that can: an unacknowledged directive, and questions (answered or not, acknowledged or not).
    const overdue = [put(40, 'directive', false), put(41, 'question', true), put(42, 'question', false)];
    const other = 'from-another-tool.json';
    writeFileSync(join(inbox, other), '{}');

    const candidates = stuckCandidatesOfCensus(deadlineTable({}), new Date(Date.UTC(2026, 0, 2)));
    const parse = vi.spyOn(Date, 'parse');
    const census = censusOfBoxes(root, [{ id: META, entry: undefined }], candidates.onInbox);

    expect(parse).toHaveBeenCalledTimes(overdue.length);
    expect(census.get(META)!.inbox).toEqual({ total: 44, unacknowledged: 13 });
    expect(
      candidates
        .picked(inbox)!
        .names.map((c) => c.name)
        .sort(),
    ).toEqual([...overdue, other].sort());
  });
});
