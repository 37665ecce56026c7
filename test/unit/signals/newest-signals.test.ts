import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pendingFileBatches, signalFileName, type SignalType, toJsonText } from 'fed/testing';
import { signalMessageSchema } from 'fed';
import { newestSignals, type NewestBox } from '../../../src/adapters/file/signals/newest-signals.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** Signals written in file-signal-v1's layout, to `owner`'s inbox folder; returns the box. */
function inbox(owner: string, signals: Array<{ at: number; id: number; type?: SignalType }>): NewestBox {
  const dir = join(tempDir('fed-newest-'), 'inbox');
  mkdirSync(dir, { recursive: true });
  for (const { at, id, type = 'report' } of signals) {
    const message = signalMessageSchema.parse({
      id: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
      timestamp: new Date(Date.UTC(2026, 0, 1) + at).toISOString(),
      from: 'meta',
      to: owner,
      type,
      subject: `${type} ${id}`,
      body: 'x',
      protocol: 'file-signal-v1',
    });
    writeFileSync(join(dir, signalFileName(message)), toJsonText(message));
  }
  return { dir, expect: { owner, box: 'inbox' } };
}

const ids = (page: ReturnType<typeof newestSignals>) => page.map(({ entry }) => Number(entry.message.id.slice(-12)));

describe('newestSignals (file-signal-v1 SignalTransport.newest)', () => {
  it('pages across boxes newest first, within a second by time then id, as a full read would', () => {
    // Several signals share a second (names keep whole seconds), across two boxes.
    const a = inbox(
      'a',
      [0, 1, 2, 3, 4, 5].map((i) => ({ at: i * 400, id: i })),
    );
    const b = inbox(
      'b',
      [6, 7, 8, 9].map((i) => ({ at: (i - 6) * 700 + 50, id: i })),
    );
    const all = ids(newestSignals([a, b], { limit: 100 }));
    expect(all).toEqual([9, 5, 4, 8, 3, 2, 7, 1, 6, 0]);
    const first = newestSignals([a, b], { limit: 3 });
    expect(ids(first)).toEqual([9, 5, 4]);
    const last = first.at(-1)!.entry.message;
    const next = newestSignals([a, b], { limit: 4, before: { timestamp: last.timestamp, id: last.id } });
    expect(ids(next)).toEqual([8, 3, 2, 7]);
    expect(next.map(({ box }) => box)).toEqual([1, 0, 0, 1]);
  });

  it('reads a file named by hand, whatever its time', () => {
    const box = inbox('a', [
      { at: 0, id: 1 },
      { at: 5_000, id: 2 },
    ]);
    writeFileSync(
      join(box.dir, 'by-hand.json'),
      toJsonText(
        signalMessageSchema.parse({
          id: '00000000-0000-4000-8000-000000000003',
          timestamp: new Date(Date.UTC(2026, 0, 1) + 9_000).toISOString(),
          from: 'meta',
          to: 'a',
          type: 'report',
          subject: 'by hand',
          body: 'x',
          protocol: 'file-signal-v1',
        }),
      ),
    );
    expect(ids(newestSignals([box], { limit: 2 }))).toEqual([3, 2]);
  });

  it('with types, leaves a signal whose name says another type unread', () => {
    const box = inbox('a', [
      { at: 0, id: 1, type: 'directive' },
      { at: 1_000, id: 2, type: 'report' },
      { at: 2_000, id: 3, type: 'directive' },
      { at: 3_000, id: 4, type: 'report' },
    ]);
    expect(ids(newestSignals([box], { limit: 10, types: ['directive'] }))).toEqual([3, 1]);
  });
});

describe('pendingFileBatches with types', () => {
  it('yields only the signals of the types asked for', async () => {
    const box = inbox('meta', [
      { at: 0, id: 1, type: 'report' },
      { at: 1_000, id: 2, type: 'question' },
      { at: 2_000, id: 3, type: 'alert' },
      { at: 3_000, id: 4, type: 'report' },
    ]);
    const got: number[] = [];
    for await (const { signals } of pendingFileBatches(box.dir, box.expect, new Set(), {
      batchSize: 1,
      verify: false,
      settleMs: 0,
      types: ['question', 'alert'],
    }))
      got.push(...signals.map((s) => Number(s.message.id.slice(-12))));
    expect(got).toEqual([2, 3]);
  });
});
