import { describe, expect, it } from 'vitest';
import { openFederation, runActors, sendSignal } from 'fed';
import { party, type ConformanceFactory } from './conformance-federation.js';

/** Longer than any test here: a signal applied at all was applied by its arrival's wake-up, not a rescan. */
const NO_RESCAN_MS = 3_600_000;
const SIGNALS = 20;
/** Far below a rescan; generous for a loaded machine. */
const APPLIED_WITHIN_MS = 2_000;

/**
 * A running `fed actors run`, through the ports: what wakes it is the arrival itself (the inbox's
 * onArrival), never its rescan timer; and an abort stops a consume between batches, each saved and
 * acknowledged on its own, so what is left is applied once by the next run.
 */
export function describeRunningActor(name: string, makeFederation: ConformanceFactory): void {
  describe(`${name}: a running actor`, () => {
    it(`applies each of ${SIGNALS} signals sent one at a time by its arrival, with the rescan an hour away`, async () => {
      const fed = await makeFederation(['alpha']);
      const waiting = new Map<string, () => void>();
      const stop = new AbortController();
      const running = runActors(openFederation(fed.root, { backend: fed.backend }), {
        team: 'alpha',
        signal: stop.signal,
        rescanMs: NO_RESCAN_MS,
        durable: false,
        streamSteps: true,
        onResult: (result) => {
          for (const step of result.steps) if (step.signal) waiting.get(step.signal.id)?.();
        },
      });
      try {
        for (let i = 0; i < SIGNALS; i++) {
          const id = crypto.randomUUID();
          const applied = new Promise<'applied'>((resolve) => waiting.set(id, () => resolve('applied')));
          await sendSignal(openFederation(fed.root, { backend: fed.backend }), {
            id,
            to: 'alpha',
            type: 'question',
            subject: `q ${i}`,
          });
          const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), APPLIED_WITHIN_MS).unref());
          expect(await Promise.race([applied, late]), `signal ${i}`).toBe('applied');
        }
      } finally {
        stop.abort();
        await running;
      }
    }, 120_000);

    it('stops between batches once aborted; the next run applies the rest, each once', async () => {
      const fed = await makeFederation(['alpha']);
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) {
        const sent = await sendSignal(
          openFederation(fed.root, { backend: fed.backend }),
          { to: 'alpha', type: 'question', subject: `q ${i}` },
          { durable: false },
        );
        ids.push(sent.message.id);
      }
      const stop = new AbortController();
      let reported = 0;
      await runActors(openFederation(fed.root, { backend: fed.backend }), {
        team: 'alpha',
        signal: stop.signal,
        batchSize: 8,
        durable: false,
        streamSteps: true,
        onResult: (result) => {
          reported += result.steps.length;
          stop.abort();
        },
      });
      expect(reported).toBe(8);
      const inbox = fed.backend.signals.inbox(party(fed.teams.alpha!));
      expect((await inbox.pending()).signals).toHaveLength(32);

      await runActors(openFederation(fed.root, { backend: fed.backend }), {
        team: 'alpha',
        once: true,
        durable: false,
      });
      expect((await inbox.pending()).signals).toEqual([]);
      const journal = await fed.backend.lifecycles.journalTail(fed.teams.alpha!, 100);
      expect(journal.map((line) => line.signalId).sort()).toEqual([...ids].sort());
    }, 120_000);
  });
}
