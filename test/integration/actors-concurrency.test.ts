import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, runActors } from 'fed';
import { readEnvelope } from 'fed/testing';
import { startFixture, waitFor } from '../helpers/fixture-process.js';
import { expectExactlyOnce, readWholeJournal } from '../helpers/lifecycle-checks.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('team actor with concurrent writers', () => {
  it('a running consumer and 4 processes sending signals and events: nothing lost, nothing applied twice, envelope intact', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const team = await onboardTeam(openFederation(root), { domain: 'docs' });
    const consumer = startFixture('consume-team.mjs', [root, 'docs', '16']);
    let out = '';
    consumer.child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitFor(() => out.includes('consuming'), 20_000, 'the consumer to start');

    const senders = Array.from({ length: 4 }, (_, i) =>
      startFixture('send-lifecycle-inputs.mjs', [root, 'docs', '25', `p${i}`, 'events']),
    );
    const sent = await Promise.all(senders.map((s) => s.done));
    for (const result of sent) expect(result, result.stderr).toMatchObject({ code: 0 });
    const ids = sent.flatMap((r) => r.stdout.trim().split('\n'));
    expect(ids).toHaveLength(100);

    // The running consumer catches up by itself (watch + rescan); then it is stopped gracefully.
    // (The dedupe record keeps ids only until their ack is durable, so the journal is what counts them.)
    await waitFor(
      () => readWholeJournal(team.location).filter((l) => l.signalId !== undefined).length === 100,
      30_000,
      'the consumer to process all signals',
    );
    consumer.child.kill('SIGTERM');
    expect(await consumer.done).toMatchObject({ code: 0 });
    await runActors(openFederation(root), { team: 'docs', once: true });

    const journal = expectExactlyOnce(root, team.location, ids);
    // The agent events that were accepted moved the lifecycle forward exactly once each.
    const agentEvents = journal.filter((l) => l.source === 'event').map((l) => l.event);
    expect(agentEvents).toEqual(['PLAN_READY', 'SCAN_COMPLETE', 'INSIGHTS_READY']);
    expect(readEnvelope(team.location)?.seq).toBe(readWholeJournal(team.location).length);
  }, 90_000);
});
