import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { censusOfBoxes, takeCensus } from '../../../src/adapters/file/box-census.js';
import type { RegistryEntry } from 'fed';
import { META, workspacePaths } from 'fed/testing';
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

describe("the census of the parties' boxes: an outbox signal's acknowledgment", () => {
  const name = '2026-01-31T120000Z-directive-same-subject.json';
  const later = '2026-01-31T120000Z-directive-same-subject-2.json';

  /** Meta and teams a and b; meta sent one directive of one second and subject to each: collided in its outbox only. */
  function federation(acknowledged: { a: boolean; b: boolean }) {
    const root = tempDir();
    const write = (dir: string, files: readonly string[]) => {
      mkdirSync(dir, { recursive: true });
      for (const file of files) writeFileSync(join(dir, file), '');
    };
    write(workspacePaths(root).outbox, [name, later]);
    const teams = (['a', 'b'] as const).map((team): RegistryEntry => {
      const location = join(root, '.fed', 'teams', team);
      write(workspacePaths(location).inbox, acknowledged[team] ? [name, `${name}.ack`] : [name]);
      return {
        domain: team,
        domainId: team,
        archetypeId: 'deliverable',
        placementType: 'directory',
        onboardedAt: '2026-01-31T11:00:00.000Z',
        location,
        status: 'active',
      };
    });
    const parties = [{ id: META, entry: undefined }, ...teams.map((entry) => ({ id: entry.domainId, entry }))];
    return censusOfBoxes(root, parties).get(META)!.outbox;
  }

  it("finds a later name of an outbox run by the inbox copies of the run's first name", () => {
    expect(federation({ a: true, b: true })).toEqual({ total: 2, unacknowledged: 0 });
  });

  it('counts both unacknowledged while either copy is (the census over-reports rather than hides)', () => {
    expect(federation({ a: true, b: false })).toEqual({ total: 2, unacknowledged: 2 });
    expect(federation({ a: false, b: false })).toEqual({ total: 2, unacknowledged: 2 });
  });
});

describe("the census of the parties' boxes: a file where a team's box belongs", () => {
  const signal = '2026-01-31T120000Z-directive-work.json';

  /** Teams a and b, each with one signal in its inbox and one in its outbox; `broken` a's path to a file. */
  function federation(broken: 'inbox' | 'outbox' | 'signals') {
    const root = tempDir();
    const parties = (['a', 'b'] as const).map((team) => {
      const location = join(root, '.fed', 'teams', team);
      const paths = workspacePaths(location);
      for (const box of [paths.inbox, paths.outbox]) {
        mkdirSync(box, { recursive: true });
        writeFileSync(join(box, signal), '');
      }
      const entry = { domain: team, domainId: team, location } as RegistryEntry;
      return { id: team, entry };
    });
    const file = workspacePaths(parties[0]!.entry.location)[broken];
    rmSync(file, { recursive: true });
    writeFileSync(file, 'x');
    return { root, parties };
  }

  it.each(['inbox', 'outbox', 'signals'] as const)(
    "a file as its %s: that team's boxes count what could be listed, with why; the other team is counted",
    (broken) => {
      const { root, parties } = federation(broken);
      const told: string[] = [];
      const census = censusOfBoxes(root, parties, (party) => told.push(party.id));
      const a = census.get('a')!;
      expect(a.unreadable).toMatch(
        /\/a\/\.fed\/signals\/(inbox|outbox): a part of it is a file where fed expects a directory \(scandir\) \[ENOTDIR\]; move that file aside$/,
      );
      expect(a.inbox.total).toBe(broken === 'outbox' ? 1 : 0);
      expect(census.get('b')).toEqual({
        inbox: { total: 1, unacknowledged: 1 },
        outbox: { total: 1, unacknowledged: 1 },
      });
      // Told of every inbox, the unlisted one as empty: the stuck-signal scan does not list it again.
      expect(told).toEqual(['a', 'b']);
    },
  );
});
