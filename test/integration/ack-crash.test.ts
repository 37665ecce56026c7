import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, runActors, sendSignal, viewLifecycle } from 'fed';
import { getTeam, readEnvelope, readRegistry } from 'fed/testing';
import { startFixture, waitFor } from '../helpers/fixture-process.js';
import { expectExactlyOnce, readWholeJournal } from '../helpers/lifecycle-checks.js';
import { tempDir } from '../helpers/temp-dir.js';

const SIGNALS = 120;
const ROUNDS = 12;
/** Fewer signals than this left to apply before a round, and the round first sends this many more. */
const TOP_UP = 40;

describe('acknowledging applies first, under crashes', () => {
  it(`${SIGNALS} signals and more acknowledged by an agent SIGKILLed ${ROUNDS} times, a consumer running beside it every other round: every effect once, every signal acked once`, async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const team = await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    const ids: string[] = [];
    const send = async (count: number) => {
      for (let i = ids.length, end = ids.length + count; i < end; i++) {
        // Pause/resume pairs make signals held while paused (acknowledged, applied at the resume).
        const kind = i % 40 === 10 ? 'pause' : i % 40 === 25 ? 'resume' : i % 3 === 2 ? 'question' : 'directive';
        const subject = kind === 'pause' || kind === 'resume' ? kind : `${kind} ${i}`;
        ids.push(
          (
            await sendSignal(
              openFederation(root),
              { to: 'docs', type: kind === 'question' ? 'question' : 'directive', subject },
              { durable: false },
            )
          ).message.id,
        );
      }
    };
    await send(SIGNALS);

    let kills = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // A fast machine may have applied them all before the kills are spent: top them up, so each acker
      // has work to be killed in (one with none prints done and exits on its own).
      if (ids.length - readWholeJournal(team.location).length < TOP_UP) await send(TOP_UP);
      const consumer = round % 2 === 1 ? startFixture('consume-team.mjs', [root, 'docs', '4']) : undefined;
      const acker = startFixture('ack-signals.mjs', [root, 'docs', ...ids]);
      let out = '';
      acker.child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await waitFor(() => out.includes('acking'), 20_000, 'the acker to start');
      const before = readWholeJournal(team.location).length;
      // Killed mid-work: after its first new journal line (or once everything is applied), plus a random moment.
      await waitFor(
        () => readWholeJournal(team.location).length > before || out.includes('done') || before >= ids.length,
        20_000,
        'the acker to apply a signal',
      );
      await new Promise((r) => setTimeout(r, Math.random() * 60));
      acker.child.kill('SIGKILL');
      consumer?.child.kill('SIGKILL');
      const exit = await acker.done;
      expect(exit.stderr).toBe('');
      if (exit.signal === 'SIGKILL') kills++;
      if (consumer) expect((await consumer.done).stderr).toBe('');
    }
    expect(kills).toBeGreaterThanOrEqual(ROUNDS / 2);

    // What is left: the agent finishes its acks, then the actor runs once.
    const last = startFixture('ack-signals.mjs', [root, 'docs', ...ids]);
    expect(await last.done).toMatchObject({ code: 0 });
    await runActors(openFederation(root), { team: 'docs', once: true });
    expectExactlyOnce(root, team.location, ids);
    const entry = getTeam(readRegistry(root), 'docs');
    expect((await viewLifecycle(openFederation(root), entry)).pending).toEqual([]);
    expect(readEnvelope(team.location)?.held).toBeUndefined();
  }, 240_000);
});
