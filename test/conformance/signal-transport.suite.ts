import { describe, expect, it } from 'vitest';
import {
  eventually,
  message,
  party,
  runWorker,
  yieldToEvents,
  type ConformanceFactory,
} from './conformance-federation.js';

/** The signal transport's contract (src/ports/signal-transport.ts), for any adapter. */
export function describeSignalTransport(name: string, makeFederation: ConformanceFactory): void {
  describe(`${name}: signal transport`, () => {
    it('delivers a signal to the recipient inbox and records a copy in the sender outbox', async () => {
      const fed = await makeFederation(['alpha']);
      const alpha = party(fed.teams.alpha!);
      const sent = await fed.backend.signals.send(message('meta', 'alpha', { subject: 'Hello', body: 'b' }), {
        from: fed.meta,
        to: alpha,
      });
      expect(sent.delivered).toBe(true);
      const inbox = await fed.backend.signals.inbox(alpha).list();
      expect(inbox.invalid).toEqual([]);
      expect(inbox.signals).toHaveLength(1);
      expect(inbox.signals[0]).toMatchObject({ file: sent.file, message: { ...sent.message, acknowledged: false } });
      const outbox = await fed.backend.signals.outbox(fed.meta).list();
      expect(outbox.signals.map((s) => s.message.id)).toEqual([sent.message.id]);
      expect(await fed.backend.signals.inbox(alpha).find(sent.message.id)).toHaveLength(1);
      expect(await fed.backend.signals.inbox(alpha).lookup(sent.file)).toMatchObject({
        signal: { message: { id: sent.message.id } },
      });
    });

    it('a prepared send delivers along its route, as many signals as it is given, each once', async () => {
      const fed = await makeFederation(['alpha']);
      const alpha = party(fed.teams.alpha!);
      const send = await fed.backend.signals.prepareSend({ from: fed.meta, to: alpha });
      const first = message('meta', 'alpha', { subject: 'one' });
      const sent = [await send(first), await send(message('meta', 'alpha', { subject: 'two' }))];
      expect(sent.map((s) => s.delivered)).toEqual([true, true]);
      expect(await send(first, { idempotent: true })).toMatchObject({ delivered: false, file: sent[0]!.file });
      const inbox = await fed.backend.signals.inbox(alpha).list();
      expect(inbox.signals.map((s) => s.message.subject)).toEqual(['one', 'two']);
      const outbox = await fed.backend.signals.outbox(fed.meta).list();
      expect(outbox.signals.map((s) => s.message.subject)).toEqual(['one', 'two']);
    });

    it('never clobbers: signals with the same second, type and subject all arrive', async () => {
      const fed = await makeFederation(['alpha']);
      const alpha = party(fed.teams.alpha!);
      const timestamp = '2026-01-01T00:00:00.000Z';
      const sent = [];
      for (let i = 0; i < 5; i++)
        sent.push(
          await fed.backend.signals.send(message('meta', 'alpha', { timestamp, body: `${i}` }), {
            from: fed.meta,
            to: alpha,
          }),
        );
      expect(new Set(sent.map((s) => s.file)).size).toBe(5);
      const listed = await fed.backend.signals.inbox(alpha).list();
      expect(listed.signals.map((s) => s.message.body).sort()).toEqual(['0', '1', '2', '3', '4']);
    });

    it('never clobbers under concurrent sender processes', async () => {
      const fed = await makeFederation(['alpha']);
      const timestamp = '2026-01-01T00:00:00.000Z';
      await Promise.all([0, 1, 2].map(() => runWorker(fed, 'send', ['alpha', 20, timestamp]).done));
      const listed = await fed.backend.signals.inbox(party(fed.teams.alpha!)).list();
      expect(listed.invalid).toEqual([]);
      expect(listed.signals).toHaveLength(60);
      expect(new Set(listed.signals.map((s) => s.message.body)).size).toBe(60);
    });

    it('lists an inbox in order: by timestamp, whatever the order of arrival', async () => {
      const fed = await makeFederation(['alpha']);
      const alpha = party(fed.teams.alpha!);
      for (const second of [3, 1, 2]) {
        await fed.backend.signals.send(
          message('meta', 'alpha', { timestamp: `2026-01-01T00:00:0${second}.000Z`, subject: `s${second}` }),
          { from: fed.meta, to: alpha },
        );
      }
      const listed = await fed.backend.signals.inbox(alpha).list();
      expect(listed.signals.map((s) => s.message.subject)).toEqual(['s1', 's2', 's3']);
    });

    it('pendingBatches: every pending signal once, in inbox order across batches; acknowledged ones left out; an invalid entry reported once', async () => {
      const fed = await makeFederation(['alpha']);
      const alpha = party(fed.teams.alpha!);
      const route = { from: fed.meta, to: alpha };
      // Out of order of arrival, several per instant and per second, across several seconds.
      for (let i = 0; i < 30; i++) {
        const second = (i * 7) % 5;
        await fed.backend.signals.send(
          message('meta', 'alpha', {
            timestamp: `2026-01-01T00:00:0${second}.${String((i * 13) % 3).padStart(3, '0')}Z`,
            subject: `s${i}`,
          }),
          route,
        );
      }
      const bad = await fed.plantInvalid(alpha, '{"not": "a signal"}');
      const inbox = fed.backend.signals.inbox(alpha);
      const listed = await inbox.list();
      await inbox.acknowledge(listed.signals.filter((_, i) => i % 4 === 1));
      const expected = (await inbox.pending()).signals.map((s) => s.message.id);
      expect(expected).toHaveLength(22);
      const batches: string[][] = [];
      const invalid: string[] = [];
      for await (const batch of inbox.pendingBatches({ batchSize: 4 })) {
        batches.push(batch.signals.map((s) => s.message.id));
        invalid.push(...batch.invalid.map((i) => i.file));
        expect(batch.signals.every((s) => !s.message.acknowledged)).toBe(true);
      }
      expect(batches.length).toBeGreaterThan(1);
      expect(batches.flat()).toEqual(expected);
      expect(invalid).toEqual([bad]);
    });

    it('a send with a caller-given id is idempotent; the same id on different content is refused', async () => {
      const fed = await makeFederation(['alpha']);
      const alpha = party(fed.teams.alpha!);
      const first = message('meta', 'alpha', { subject: 'Once' });
      const route = { from: fed.meta, to: alpha };
      const sends = await Promise.all(
        [1, 2, 3].map(() => fed.backend.signals.send(first, route, { idempotent: true })),
      );
      expect(sends.filter((s) => s.delivered)).toHaveLength(1);
      expect(new Set(sends.map((s) => s.file)).size).toBe(1);
      await expect(
        fed.backend.signals.send({ ...first, body: 'different' }, route, { idempotent: true }),
      ).rejects.toMatchObject({ code: 'SIGNAL_ID_REUSED' });
      expect((await fed.backend.signals.inbox(alpha).list()).signals).toHaveLength(1);
      expect((await fed.backend.signals.outbox(fed.meta).list()).signals).toHaveLength(1);
    });

    it('acknowledging is idempotent: the first time is kept, concurrent acknowledgers agree', async () => {
      const fed = await makeFederation(['alpha']);
      const alpha = party(fed.teams.alpha!);
      await fed.backend.signals.send(message('meta', 'alpha'), { from: fed.meta, to: alpha });
      const inbox = fed.backend.signals.inbox(alpha);
      const [entry] = (await inbox.pending()).signals;
      const first = new Date('2026-01-01T00:00:00.000Z');
      const results = await Promise.all(
        [0, 1, 2].map((i) => inbox.acknowledge([entry!], { now: () => new Date(first.getTime() + i * 1000) })),
      );
      const acks = results.flatMap((r) => r.acknowledged);
      expect(acks.filter((a) => !a.alreadyAcknowledged)).toHaveLength(1);
      const kept = acks.find((a) => !a.alreadyAcknowledged)!.signal.message.acknowledged_at;
      for (const ack of acks) expect(ack.signal.message.acknowledged_at).toBe(kept);
      const again = await inbox.acknowledge([entry!], { now: () => new Date('2030-01-01T00:00:00.000Z') });
      expect(again.acknowledged[0]).toMatchObject({
        alreadyAcknowledged: true,
        signal: { message: { acknowledged_at: kept } },
      });
      expect((await fed.backend.signals.inbox(alpha).list()).signals[0]?.message).toMatchObject({
        acknowledged: true,
        acknowledged_at: kept,
      });
      expect((await fed.backend.signals.inbox(alpha).pending()).signals).toEqual([]);
    });

    it('quarantine: a bad entry never hides the good ones, and nothing is deleted', async () => {
      const fed = await makeFederation(['alpha']);
      const alpha = party(fed.teams.alpha!);
      await fed.backend.signals.send(message('meta', 'alpha', { subject: 'before' }), { from: fed.meta, to: alpha });
      const bad = await fed.plantInvalid(alpha, '{"not": "a signal"}');
      await fed.backend.signals.send(message('meta', 'alpha', { subject: 'after' }), { from: fed.meta, to: alpha });
      const inbox = fed.backend.signals.inbox(alpha);
      const listed = await inbox.list();
      expect(listed.signals.map((s) => s.message.subject).sort()).toEqual(['after', 'before']);
      expect(listed.invalid.map((i) => i.file)).toEqual([bad]);
      expect(listed.invalid[0]?.reason).toBeTruthy();
      await inbox.quarantine(listed.invalid[0]!);
      const after = await fed.backend.signals.inbox(alpha).list();
      expect(after.invalid).toEqual([]);
      expect(after.signals).toHaveLength(2);
      expect(await fed.quarantined(alpha)).toContain('{"not": "a signal"}');
    });

    it('watch yields each new signal once', async () => {
      const fed = await makeFederation(['alpha']);
      const alpha = party(fed.teams.alpha!);
      const controller = new AbortController();
      const subscription = fed.backend.signals.inbox(alpha).watch({ signal: controller.signal, rescanMs: 100 });
      const seen: string[] = [];
      const reading = (async () => {
        for await (const entry of subscription) seen.push(entry.message.subject);
      })();
      for (const subject of ['one', 'two'])
        await fed.backend.signals.send(message('meta', 'alpha', { subject }), { from: fed.meta, to: alpha });
      await eventually(() => seen.length >= 2, 20_000, 'both signals to be watched');
      controller.abort();
      await reading;
      expect(seen.sort()).toEqual(['one', 'two']);
      expect(subscription.closed).toBe(true);
    });

    it('census counts both boxes of every party; an outbox signal is unacknowledged until its recipient acknowledges it', async () => {
      const fed = await makeFederation(['alpha', 'beta']);
      const alpha = party(fed.teams.alpha!);
      const beta = party(fed.teams.beta!);
      await fed.backend.signals.send(message('alpha', 'beta'), { from: alpha, to: beta });
      await fed.backend.signals.send(message('meta', 'beta', { subject: 'other' }), { from: fed.meta, to: beta });
      let census = await fed.backend.signals.census([fed.meta, alpha, beta]);
      expect(census.get('beta')).toEqual({
        inbox: { total: 2, unacknowledged: 2 },
        outbox: { total: 0, unacknowledged: 0 },
      });
      expect(census.get('alpha')).toEqual({
        inbox: { total: 0, unacknowledged: 0 },
        outbox: { total: 1, unacknowledged: 1 },
      });
      const inbox = fed.backend.signals.inbox(beta);
      const fromAlpha = (await inbox.list()).signals.filter((s) => s.message.from === 'alpha');
      await inbox.acknowledge(fromAlpha);
      census = await fed.backend.signals.census([fed.meta, alpha, beta]);
      expect(census.get('alpha')?.outbox).toEqual({ total: 1, unacknowledged: 0 });
      expect(census.get('beta')?.inbox).toEqual({ total: 2, unacknowledged: 1 });
      expect(census.get('meta')?.outbox).toEqual({ total: 1, unacknowledged: 1 });
    });

    it('torn-free: a reader polling while another process sends never sees a partial signal', async () => {
      const fed = await makeFederation(['alpha']);
      const sender = runWorker(fed, 'send', ['alpha', 150, new Date().toISOString()]);
      let finished = false;
      void sender.done.then(
        () => (finished = true),
        () => (finished = true),
      );
      let reads = 0;
      while (!finished) {
        const listed = await fed.backend.signals.inbox(party(fed.teams.alpha!)).list({ verify: true });
        expect(listed.invalid.filter((file) => !file.retryable)).toEqual([]);
        reads++;
        await yieldToEvents();
      }
      await sender.done;
      expect(reads).toBeGreaterThan(0);
      expect((await fed.backend.signals.inbox(party(fed.teams.alpha!)).list()).signals).toHaveLength(150);
    });
  });
}
