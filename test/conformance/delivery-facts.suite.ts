import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SentFact } from 'fed/testing';
import { message, party, runWorker, type ConformanceFactory } from './conformance-federation.js';

const sentFact = (id: string, subject: string): SentFact => ({
  id,
  timestamp: '2026-01-01T00:00:00.000Z',
  from: 'meta',
  to: 'alpha',
  type: 'report',
  subject,
  digest: 'a'.repeat(64),
});

/** The delivery fact store's contract (src/ports/delivery-fact-store.ts), and finding a signal by id with its sent fact, for any adapter. */
export function describeDeliveryFacts(name: string, makeFederation: ConformanceFactory): void {
  describe(`${name}: delivery facts`, () => {
    it('records each fact once: the first is kept, a later one is refused and changes nothing', async () => {
      const fed = await makeFederation([]);
      const facts = fed.backend.delivery;
      const id = randomUUID();
      expect(await facts.has(id, 'sent')).toBe(false);
      expect(await facts.get(id, 'sent')).toBeUndefined();
      expect(await facts.all(id)).toEqual({});
      expect(await facts.record(id, 'sent', sentFact(id, 'First'))).toBe(true);
      expect(await facts.record(id, 'sent', sentFact(id, 'Second'))).toBe(false);
      expect(await facts.get(id, 'sent')).toEqual(sentFact(id, 'First'));
      expect(await facts.has(id, 'sent')).toBe(true);
      expect(await facts.has(id, 'read')).toBe(false);
      const read = { readAt: '2026-01-01T00:01:00.000Z', by: 'alpha' };
      expect(await facts.record(id, 'read', read, { durable: false })).toBe(true);
      expect(await facts.all(id)).toEqual({ sent: sentFact(id, 'First'), read });
      // Another signal's facts are its own.
      expect(await facts.all(randomUUID())).toEqual({});
    });

    it('an id is the same in any case', async () => {
      const fed = await makeFederation([]);
      const facts = fed.backend.delivery;
      const id = randomUUID();
      expect(
        await facts.record(id.toUpperCase(), 'answered', {
          answeredAt: '2026-01-01T00:00:00.000Z',
          replyId: randomUUID(),
          from: 'meta',
        }),
      ).toBe(true);
      expect(await facts.has(id, 'answered')).toBe(true);
      expect(await facts.get(id, 'answered')).toMatchObject({ from: 'meta' });
      expect(
        await facts.record(id, 'answered', {
          answeredAt: '2026-01-02T00:00:00.000Z',
          replyId: randomUUID(),
          from: 'meta',
        }),
      ).toBe(false);
    });

    it('recorded answers has for many signals at once, for a few ids and for a box full (ids in any case)', async () => {
      const fed = await makeFederation([]);
      const facts = fed.backend.delivery;
      const ids: string[] = Array.from({ length: 150 }, () => randomUUID());
      const read = { readAt: '2026-01-01T00:01:00.000Z', by: 'alpha' };
      const answered = { answeredAt: '2026-01-01T00:02:00.000Z', replyId: randomUUID(), from: 'meta' };
      for (const [index, id] of ids.entries()) {
        if (index % 3 === 0) await facts.record(id, 'read', read, { durable: false });
        if (index % 5 === 0) await facts.record(id.toUpperCase(), 'answered', answered, { durable: false });
        if (index % 7 === 0) await facts.record(id, 'sent', sentFact(id, `Signal ${index}`), { durable: false });
      }
      const expected = (asked: readonly string[], wanted: readonly ('read' | 'answered' | 'sent')[]) => {
        const map = new Map<string, Set<string>>();
        for (const id of asked) {
          const index = ids.indexOf(id.toLowerCase());
          const has = { read: index % 3 === 0, answered: index % 5 === 0, sent: index % 7 === 0 };
          const set = new Set(wanted.filter((fact) => has[fact]));
          if (set.size > 0) map.set(id.toLowerCase(), set);
        }
        return map;
      };
      // All of them, asked in upper case, for two of the facts: `sent` is not asked, so not answered.
      const upper = ids.map((id) => id.toUpperCase());
      expect(await facts.recorded(upper, ['read', 'answered'])).toEqual(expected(upper, ['read', 'answered']));
      // A few of them, and an id nothing was recorded for.
      const few = [...ids.slice(0, 10), randomUUID()];
      expect(await facts.recorded(few, ['read', 'answered', 'sent'])).toEqual(
        expected(few.slice(0, 10), ['read', 'answered', 'sent']),
      );
      // One of them (a file store checks its file rather than list the folder: same answer).
      expect(await facts.recorded([ids[0]!], ['read', 'sent'])).toEqual(expected([ids[0]!], ['read', 'sent']));
      expect(await facts.recorded([], ['read'])).toEqual(new Map());
      expect((await facts.recorded(ids, ['undeliverable'])).size).toBe(0);
    });

    it('refuses a fact that does not match its schema, recording nothing', async () => {
      const fed = await makeFederation([]);
      const id = randomUUID();
      await expect(fed.backend.delivery.record(id, 'read', { readAt: 'yesterday', by: 'alpha' })).rejects.toThrow();
      expect(await fed.backend.delivery.has(id, 'read')).toBe(false);
    });

    it('under concurrent writer processes each fact is recorded by exactly one of them, and all see that one', async () => {
      const fed = await makeFederation([]);
      const ids = Array.from({ length: 25 }, () => randomUUID());
      const writers = ['w1', 'w2', 'w3', 'w4'];
      const outputs = await Promise.all(writers.map((writer) => runWorker(fed, 'record-facts', [writer, ...ids]).done));
      const won = outputs.map(
        (output) => JSON.parse(output.trim().split('\n').at(-1)!) as { writer: string; won: string[] },
      );
      for (const id of ids) {
        const winners = won.filter((w) => w.won.includes(id)).map((w) => w.writer);
        expect(winners, id).toHaveLength(1);
        expect(await fed.backend.delivery.get(id, 'read')).toMatchObject({ by: winners[0] });
      }
    });

    it('find with the sent fact goes to the signal; a hint that leads nowhere still finds it by reading the inbox', async () => {
      const fed = await makeFederation(['alpha']);
      const alpha = party(fed.teams.alpha!);
      const signals = [];
      for (let i = 0; i < 3; i++) {
        signals.push(
          (
            await fed.backend.signals.send(
              message('meta', 'alpha', { subject: 'Same', timestamp: '2026-01-01T00:00:00.000Z', body: `${i}` }),
              { from: fed.meta, to: alpha },
            )
          ).message,
        );
      }
      const inbox = fed.backend.signals.inbox(alpha);
      await inbox.acknowledge(await inbox.find(signals[2]!.id), { now: () => new Date('2026-01-01T00:05:00.000Z') });
      for (const signal of signals) {
        const found = await fed.backend.signals.inbox(alpha).find(signal.id.toUpperCase(), signal);
        expect(found.map((entry) => entry.message.body)).toEqual([signal.body]);
      }
      const acked = await fed.backend.signals.inbox(alpha).find(signals[2]!.id, signals[2]);
      expect(acked[0]!.message).toMatchObject({ acknowledged: true, acknowledged_at: '2026-01-01T00:05:00.000Z' });
      const wrongHint = { ...signals[0]!, subject: 'Another subject', timestamp: '2026-02-02T00:00:00.000Z' };
      expect(
        (await fed.backend.signals.inbox(alpha).find(signals[0]!.id, wrongHint)).map((entry) => entry.message.body),
      ).toEqual(['0']);
      expect(await fed.backend.signals.inbox(alpha).find(randomUUID(), signals[0])).toEqual([]);
    });
  });
}
