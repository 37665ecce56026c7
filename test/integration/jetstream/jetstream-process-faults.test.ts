import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, party, runWorker } from '../../conformance/conformance-federation.js';
import { expectEachAppliedOnce, sendDirectives } from '../../conformance/exactly-once.suite.js';
import { jetstreamFederations } from '../../helpers/jetstream-federation.js';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE =
  'JetStream backend: consumer and writer processes killed and racing (the conformance worker on the built library)';
const SIGNALS = 300;
const KILLS = 15;
/** Fewer pending than this before a round, and the round first sends this many more. */
const TOP_UP = 20;
const WRITERS = 8;

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const federation = jetstreamFederations(useNatsServer());

  it(`${SIGNALS} signals and more, the team actor SIGKILLed ${KILLS} times while it applies them: every effect once, every signal acknowledged once`, async () => {
    const fed = await federation(['alpha']);
    const team = fed.teams.alpha!;
    const ids = await sendDirectives(fed, SIGNALS);
    const inbox = fed.backend.signals.inbox(party(team));
    for (let round = 0; round < KILLS; round++) {
      // A fast consumer may drain the inbox before every kill is spent: top it up, so each of them lands
      // while the actor has work (a kill of an idle consumer proves nothing).
      if ((await inbox.pending()).signals.length < TOP_UP) ids.push(...(await sendDirectives(fed, TOP_UP)));
      const before = (await inbox.pending()).signals.length;
      expect(before).toBeGreaterThan(0);
      const consumer = runWorker(fed, 'consume', ['alpha']);
      await eventually(() => consumer.output().includes('ready'), 20_000, 'the consumer to start');
      // Kill it once it has made some progress, mid-batch more often than not.
      await eventually(
        async () => (await inbox.pending()).signals.length < before,
        20_000,
        'the consumer to make progress',
      );
      consumer.kill('SIGKILL');
      await consumer.done.catch(() => undefined);
    }
    await expectEachAppliedOnce(fed, team, ids, 120_000);
    expect((await fed.backend.signals.census([party(team)])).get('alpha')!.inbox).toEqual({
      total: ids.length,
      unacknowledged: 0,
    });
  }, 400_000);

  it(`registry compare-and-swap with ${WRITERS} writer processes: no lost update, lockVersion counts every write`, async () => {
    const fed = await federation([]);
    const start = await fed.backend.registry.read();
    // Every writer's first update starts from one registry read before any of them commits: they race for
    // certain, whatever the scheduler does on a loaded machine.
    const barrier = join(fed.root, '.writers-read');
    const writers = Array.from({ length: WRITERS }, (_, i) =>
      runWorker(fed, 'registry-add', [`w${i}`, 10, barrier, WRITERS]),
    );
    const summaries = await Promise.all(writers.map((w) => w.done));
    const final = await fed.backend.registry.read();
    expect(final.lockVersion).toBe(start.lockVersion + WRITERS * 10);
    expect(new Set(final.teams.map((t) => t.domainId)).size).toBe(WRITERS * 10);
    // They did race: all but one of the first commits met a conflict and retried.
    const conflicts = summaries
      .map((out) => JSON.parse(out.trim().split('\n').pop()!) as { conflicts: number })
      .reduce((sum, s) => sum + s.conflicts, 0);
    expect(conflicts).toBeGreaterThanOrEqual(WRITERS - 1);
  }, 200_000);
});
