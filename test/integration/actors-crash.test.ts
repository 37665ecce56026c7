import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, runActors, sendSignal, viewLifecycle } from 'fed';
import { getTeam, readRegistry } from 'fed/testing';
import { startFixture, waitFor } from '../helpers/fixture-process.js';
import { expectExactlyOnce, readWholeJournal } from '../helpers/lifecycle-checks.js';
import { tempDir } from '../helpers/temp-dir.js';

const SIGNALS = 300;
const KILLS = 16;

describe('team actor under crashes', () => {
  it(`${SIGNALS} signals, consumer SIGKILLed ${KILLS} times at random moments: every effect applied once, every signal acked once`, async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const team = await onboardTeam(openFederation(root), { domain: 'docs' });
    const ids: string[] = [];
    // Mission first, then a mix with pause/resume pairs so state changes (and reports to meta) happen mid-run.
    for (let i = 0; i < SIGNALS; i++) {
      const kind = i % 50 === 20 ? 'pause' : i % 50 === 30 ? 'resume' : i % 4 === 3 ? 'question' : 'directive';
      const subject = kind === 'pause' || kind === 'resume' ? kind : `${kind} ${i}`;
      const type = kind === 'question' ? 'question' : 'directive';
      const sent = await sendSignal(
        openFederation(root),
        { to: 'docs', type, subject, body: `body ${i}` },
        { durable: false },
      );
      ids.push(sent.message.id);
    }

    let kills = 0;
    const progress: number[] = [];
    for (let round = 0; round < KILLS; round++) {
      const consumer = startFixture('consume-team.mjs', [root, 'docs', '4']);
      let out = '';
      consumer.child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await waitFor(() => out.includes('consuming'), 20_000, 'the consumer to start');
      // Every other round is killed only once it has applied a batch, so kills land mid-work however slow
      // the machine is (start-up alone can outlast the random delay); the others at a random moment.
      if (round % 2 === 1) {
        const before = readWholeJournal(team.location).length;
        await waitFor(
          () => before >= SIGNALS || readWholeJournal(team.location).length > before,
          20_000,
          'the consumer to apply a batch',
        );
      }
      await new Promise((r) => setTimeout(r, Math.random() * 120));
      consumer.child.kill('SIGKILL');
      const exit = await consumer.done;
      expect(exit.stderr).toBe('');
      if (exit.signal === 'SIGKILL') kills++;
      progress.push(readWholeJournal(team.location).length);
    }
    expect(kills).toBe(KILLS);
    // The kills landed mid-work: some rounds ended with part of the inbox processed.
    expect(progress.filter((n) => n > 0 && n < SIGNALS).length).toBeGreaterThanOrEqual(2);

    // A final, uninterrupted run finishes whatever is left.
    await runActors(openFederation(root), { team: 'docs', once: true });
    expectExactlyOnce(root, team.location, ids);
    const view = await viewLifecycle(openFederation(root), getTeam(readRegistry(root), 'docs'));
    expect(view.state).toBe('preparing');
    expect(view.pending).toEqual([]);
    expect(readRegistry(root).teams[0]?.status).toBe('active');
  }, 120_000);
});
