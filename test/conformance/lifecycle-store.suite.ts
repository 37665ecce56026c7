import { describe, expect, it } from 'vitest';
import type { LifecycleEnvelope } from 'fed';
import type { JournalLine } from 'fed/testing';
import { runWorker, yieldToEvents, type ConformanceFactory } from './conformance-federation.js';

const envelope = (seq: number): LifecycleEnvelope => ({
  machineId: 'deliverable',
  machineVersion: 1,
  snapshot: { status: 'active', value: 'preparing', context: {} },
  seq,
  processed: [],
  journalTail: [],
  pendingReports: [],
  savedAt: '2026-01-01T00:00:00.000Z',
});

const line = (seq: number): JournalLine => ({
  seq,
  at: '2026-01-01T00:00:00.000Z',
  event: 'PAUSE',
  from: 'preparing',
  to: 'paused',
  source: 'registry',
});

/** The lifecycle store's contract (src/ports/lifecycle-store.ts), for any adapter. */
export function describeLifecycleStore(name: string, makeFederation: ConformanceFactory): void {
  describe(`${name}: lifecycle store`, () => {
    it('read, then compare-and-swap writes: a stale version is a conflict and writes nothing', async () => {
      const fed = await makeFederation(['alpha']);
      const team = fed.teams.alpha!;
      const store = fed.backend.lifecycles;
      expect(await store.read(team)).toBeUndefined();
      const v1 = await store.exclusive(team, (section) => store.write(team, envelope(1), null, section));
      expect(await store.read(team)).toEqual({ envelope: envelope(1), version: v1 });
      await expect(
        store.exclusive(team, (section) => store.write(team, envelope(9), null, section)),
      ).rejects.toMatchObject({ code: 'LIFECYCLE_CONFLICT' });
      const v2 = await store.exclusive(team, (section) => store.write(team, envelope(2), v1, section));
      expect(v2).not.toBe(v1);
      await expect(
        store.exclusive(team, (section) => store.write(team, envelope(3), v1, section)),
      ).rejects.toMatchObject({ code: 'LIFECYCLE_CONFLICT' });
      expect((await store.read(team))?.envelope.seq).toBe(2);
    });

    it('the exclusive section serialises read-modify-writes of concurrent processes: none is lost, reads are never torn', async () => {
      const fed = await makeFederation(['alpha']);
      const team = fed.teams.alpha!;
      const store = fed.backend.lifecycles;
      await store.exclusive(team, (section) => store.write(team, envelope(0), null, section, { durable: false }));
      const workers = [0, 1, 2].map(() => runWorker(fed, 'lifecycle-bump', ['alpha', 15]));
      let finished = 0;
      for (const w of workers)
        void w.done.then(
          () => finished++,
          () => finished++,
        );
      let last = 0;
      while (finished < workers.length) {
        const seq = (await store.read(team))!.envelope.seq;
        expect(seq).toBeGreaterThanOrEqual(last);
        last = seq;
        await yieldToEvents();
      }
      await Promise.all(workers.map((w) => w.done));
      const final = (await store.read(team))!.envelope;
      expect(final.seq).toBe(45);
      expect(new Set(final.processed).size).toBe(45);
    });

    it('the journal appends by seq: repeats are skipped, the tail is oldest first', async () => {
      const fed = await makeFederation(['alpha']);
      const team = fed.teams.alpha!;
      const store = fed.backend.lifecycles;
      expect(await store.journalTail(team, 5)).toEqual([]);
      expect(await store.appendJournal(team, [line(1), line(2)])).toBe(2);
      expect(await store.appendJournal(team, [line(1), line(2), line(3)])).toBe(1);
      expect(await store.appendJournal(team, [line(2)])).toBe(0);
      expect((await store.journalTail(team, 5)).map((l) => l.seq)).toEqual([1, 2, 3]);
      expect((await store.journalTail(team, 2)).map((l) => l.seq)).toEqual([2, 3]);
      expect((await store.journal(team)).map((l) => l.seq)).toEqual([1, 2, 3]);
    });

    it('keeps ended runs: each with its envelope and journal, the next run journals on from an empty tail, and a repeated keep keeps nothing twice', async () => {
      const fed = await makeFederation(['alpha']);
      const team = fed.teams.alpha!;
      const store = fed.backend.lifecycles;
      expect(await store.keptRuns(team)).toEqual([]);
      const v1 = await store.exclusive(team, (section) => store.write(team, envelope(2), null, section));
      await store.appendJournal(team, [line(1), line(2)]);
      const first = await store.exclusive(team, (section) => store.keepRun(team, section));
      expect(first).toMatchObject({ run: 1, envelope: envelope(2) });
      // A keep interrupted after it kept the run, and run again, finds it kept.
      expect((await store.exclusive(team, (section) => store.keepRun(team, section))).run).toBe(1);
      expect(await store.journalTail(team, 5)).toEqual([]);
      const v2 = await store.exclusive(team, (section) => store.write(team, envelope(3), v1, section));
      await store.appendJournal(team, [line(3)]);
      expect((await store.journalTail(team, 5)).map((l) => l.seq)).toEqual([3]);
      await store.exclusive(team, (section) => store.write(team, envelope(4), v2, section));
      await store.appendJournal(team, [line(4)]);
      expect((await store.exclusive(team, (section) => store.keepRun(team, section))).run).toBe(2);
      await store.appendJournal(team, [line(5)]);
      const runs = await store.keptRuns(team);
      expect(runs.map((r) => [r.run, r.envelope.seq])).toEqual([
        [1, 2],
        [2, 4],
      ]);
      expect(runs.every((r) => r.location.length > 0)).toBe(true);
      expect((await store.journal(team, 1)).map((l) => l.seq)).toEqual([1, 2]);
      expect((await store.journal(team, 2)).map((l) => l.seq)).toEqual([3, 4]);
      expect((await store.journal(team)).map((l) => l.seq)).toEqual([5]);
      expect(await store.journal(team, 7)).toEqual([]);
      // Kept runs are never part of the current envelope's version: the next write still lands.
      expect((await store.read(team))?.envelope.seq).toBe(4);
    });
  });

  describe(`${name}: federation journal`, () => {
    it('appends records from several processes and reads every one back, oldest first', async () => {
      const fed = await makeFederation([]);
      const journal = fed.backend.journal;
      expect(await journal.read()).toEqual([]);
      await journal.append({
        kind: 'status',
        team: 'alpha',
        from: 'active',
        to: 'paused',
        at: '2026-01-01T00:00:00.000Z',
      });
      await Promise.all([0, 1].map((n) => runWorker(fed, 'journal-append', [`w${n}`, 5]).done));
      await journal.append({
        kind: 'status',
        team: 'alpha',
        from: 'paused',
        to: 'active',
        at: '2026-01-01T00:00:01.000Z',
      });
      const records = await journal.read();
      expect(records).toHaveLength(12);
      expect(records[0]).toMatchObject({ team: 'alpha', to: 'paused' });
      expect(records.at(-1)).toMatchObject({ team: 'alpha', to: 'active' });
      for (const worker of ['w0', 'w1']) {
        expect(records.filter((r) => r.team === worker).map((r) => r.kind === 'removed' && r.location)).toEqual([
          '/0',
          '/1',
          '/2',
          '/3',
          '/4',
        ]);
      }
    });
  });
}
