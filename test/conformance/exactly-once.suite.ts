import { describe, expect, it } from 'vitest';
import { sendSignal, type RegistryEntry } from '../../src/index.js';
import {
  eventually,
  party,
  runWorker,
  type ConformanceFactory,
  type ConformanceFederation,
} from './conformance-federation.js';
import { openFederation } from '../../src/engine/context.js';

const SIGNALS = 80;
const KILLS = 5;

/**
 * Exactly-once effect over at-least-once delivery (docs/design/invariants.md #6), through the ports: the team
 * actor is SIGKILLed at random moments while it applies its inbox; in the end every signal's effect is in
 * the journal exactly once, every signal is acknowledged, and the journal's seq runs 1..n without gaps.
 */
export function describeExactlyOnceApply(name: string, makeFederation: ConformanceFactory): void {
  describe(`${name}: exactly-once apply under SIGKILL`, () => {
    it(`${SIGNALS} signals, the consumer killed ${KILLS} times: every effect once, every signal acknowledged`, async () => {
      const fed = await makeFederation(['alpha']);
      const team = fed.teams.alpha!;
      const ids = await sendDirectives(fed, SIGNALS, { durable: false });
      for (let round = 0; round < KILLS; round++) {
        const consumer = runWorker(fed, 'consume', ['alpha']);
        await eventually(() => consumer.output().includes('ready'), 20_000, 'the consumer to start');
        await new Promise((r) => setTimeout(r, Math.random() * 150));
        consumer.kill('SIGKILL');
        await consumer.done.catch(() => undefined);
      }
      await expectEachAppliedOnce(fed, team, ids, 60_000);
    }, 180_000);
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
