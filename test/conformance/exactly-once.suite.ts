import { describe, expect, it } from 'vitest';
import { applyLifecycleInputs, openFederation, type RegistryEntry, sendSignal } from 'fed';
import { type ApplyFaultPoint, loadTeamLifecycle } from 'fed/testing';
import {
  eventually,
  party,
  runWorker,
  type ConformanceFactory,
  type ConformanceFederation,
} from './conformance-federation.js';

const SIGNALS = 80;
/**
 * Where the consumer is killed, one process each: every crash point of a write (ApplyFaultPoint), at the
 * first write of a consume and at its second. Each kill applies at most two batches of 4, so the 80
 * signals outlast them.
 */
const KILLS: readonly [ApplyFaultPoint, number][] = [
  ['before-persist', 1],
  ['after-persist', 1],
  ['after-ack', 1],
  ['before-persist', 2],
  ['after-persist', 2],
  ['after-ack', 2],
];

/**
 * Exactly-once effect over at-least-once delivery (docs/design/invariants.md #6), through the ports: the team
 * actor is SIGKILLed at each crash point of its envelope writes — before the write, between the write and
 * the acks, after the acks — and each kill is seen to land there; in the end every signal's effect is in
 * the journal exactly once, every signal is acknowledged, and the journal's seq runs 1..n without gaps.
 * Each layer of the defence is reached alone: the consumer skips what its envelope holds; the walk skips
 * what an envelope saved after the consumer read it holds (a redelivery the consumer could not know of).
 */
export function describeExactlyOnceApply(name: string, makeFederation: ConformanceFactory): void {
  describe(`${name}: exactly-once apply under SIGKILL`, () => {
    it(`${SIGNALS} signals, the consumer killed at each crash point of its writes: every effect once, every signal acknowledged`, async () => {
      const fed = await makeFederation(['alpha']);
      const team = fed.teams.alpha!;
      const ids = await sendDirectives(fed, SIGNALS, { durable: false });
      const inbox = fed.backend.signals.inbox(party(team));
      let redelivered = 0;
      for (const [point, nth] of KILLS) {
        const consumer = runWorker(fed, 'consume', ['alpha', point, nth]);
        await expect(consumer.done).rejects.toThrow(/ended with SIGKILL/);
        // The kill landed where it was armed, not anywhere it happened to.
        expect(consumer.output()).toContain(`fault ${point}\n`);
        if (point === 'after-persist') {
          // Saved, not acknowledged: the next consumer is given again what this one applied.
          const processed = new Set((await fed.backend.lifecycles.read(team))!.envelope.processed);
          const owed = (await inbox.pending()).signals.filter((s) => processed.has(s.message.id));
          expect(
            owed.length,
            `signals saved by the consumer killed at ${point} #${nth}, not acknowledged`,
          ).toBeGreaterThan(0);
          redelivered += owed.length;
        }
      }
      expect(redelivered).toBeGreaterThan(0);
      await expectEachAppliedOnce(fed, team, ids, 60_000);
    }, 180_000);

    it('the walk skips a signal saved after its caller read the envelope: a redelivery the caller could not know of', async () => {
      const fed = await makeFederation(['alpha']);
      const team = fed.teams.alpha!;
      const federation = openFederation(fed.root, { backend: fed.backend });
      const { message: signal } = await sendSignal(
        federation,
        { to: 'alpha', type: 'directive', subject: 'directive 1' },
        { durable: false },
      );
      // A consumer's read: the envelope before the signal was applied, so its own filter lets it through.
      const read = await loadTeamLifecycle(team, fed.backend.lifecycles);
      // Another consumer applies the signal and is killed before it acknowledges it.
      const first = await applyLifecycleInputs(federation, team, [{ source: 'signal', signal }], { durable: false });
      expect(first.steps.map((step) => step.outcome)).toEqual(['applied']);
      // The first consumer goes on with what it read: only the walk, under the team's section, can tell.
      const again = await applyLifecycleInputs(federation, team, [{ source: 'signal', signal }], {
        known: read,
        durable: false,
      });
      expect(again.steps).toEqual([{ outcome: 'duplicate', signalId: signal.id }]);
      const journal = await fed.backend.lifecycles.journalTail(team, 10);
      expect(journal.filter((line) => line.signalId === signal.id)).toHaveLength(1);
    });
  });
}

/** Send team alpha `count` directives, a pause and a resume among every 20; returns their ids in order. */
export async function sendDirectives(
  fed: ConformanceFederation,
  count: number,
  options: { durable?: boolean } = {},
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const subject = i % 20 === 7 ? 'pause' : i % 20 === 12 ? 'resume' : `directive ${i}`;
    ids.push(
      (
        await sendSignal(
          openFederation(fed.root, { backend: fed.backend }),
          { to: 'alpha', type: 'directive', subject, body: `${i}` },
          options,
        )
      ).message.id,
    );
  }
  return ids;
}

/**
 * After the kills: one last consumer runs until the inbox is empty; then the journal's seq runs 1..n
 * without gaps, holds each signal's effect exactly once, agrees with the envelope, and every signal is
 * acknowledged.
 */
export async function expectEachAppliedOnce(
  fed: ConformanceFederation,
  team: RegistryEntry,
  ids: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const last = runWorker(fed, 'consume', ['alpha']);
  // Its SIGTERM handler is set once it says ready: the inbox may be done already, before it has started.
  await eventually(() => last.output().includes('ready'), 20_000, 'the last consumer to start');
  const inbox = fed.backend.signals.inbox(party(team));
  await eventually(
    async () => (await inbox.pending()).signals.length === 0,
    timeoutMs,
    'every signal to be acknowledged',
  );
  last.kill('SIGTERM');
  await last.done;

  const journal = await fed.backend.lifecycles.journalTail(team, 10 * ids.length);
  expect(journal.map((l) => l.seq)).toEqual(journal.map((_, i) => i + 1));
  const applied = journal.flatMap((l) => (l.signalId ? [l.signalId] : []));
  expect(applied.sort()).toEqual([...ids].sort());
  expect((await fed.backend.lifecycles.read(team))?.envelope.seq).toBe(journal.length);
  const listed = await inbox.list();
  expect(listed.signals).toHaveLength(ids.length);
  expect(listed.signals.every((s) => s.message.acknowledged)).toBe(true);
}
