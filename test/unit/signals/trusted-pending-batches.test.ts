import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ackFileName, pendingFileBatches, signalFileName, toJsonText } from 'fed/testing';
import { signalMessageSchema } from 'fed';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * `fed team show` lists a team's pending signals with its acks taken as listed (trustAcks): a long-lived
 * team's inbox holds its whole history, a signal and an ack each, and what the listing costs beyond
 * reading the folder grows with it. In the listing in name order, a signal's ack is the name after it: no
 * set of acks is made, nor an ack name per signal. Before, each ack name was noted in a set and looked up
 * for its signal (two set operations per ack), and before that put in two sets and looked up three times.
 */
const SIGNALS = 50;

function history(): string {
  const dir = join(tempDir('fed-trusted-'), 'inbox');
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i <= SIGNALS; i++) {
    const message = signalMessageSchema.parse({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1_000).toISOString(),
      from: 'meta',
      to: 'helper',
      type: 'question',
      subject: `Question ${i}`,
      body: 'x',
      protocol: 'file-signal-v1',
    });
    const name = signalFileName(message);
    writeFileSync(join(dir, name), toJsonText(message));
    // All acknowledged but the last.
    if (i < SIGNALS) writeFileSync(join(dir, ackFileName(name)), '{"acknowledged":true}');
  }
  return dir;
}

/** The subjects of the signals pending in `dir`, its acks trusted as listed. */
async function pendingSubjects(dir: string): Promise<string[]> {
  const pending: string[] = [];
  const batches = pendingFileBatches(dir, { owner: 'helper', box: 'inbox' }, new Set(), {
    batchSize: 10,
    verify: false,
    settleMs: 0,
    trustAcks: true,
  });
  for await (const batch of batches) pending.push(...batch.signals.map((s) => s.message.subject));
  return pending;
}

describe('pending signals with trusted acks', () => {
  it('finds the one pending signal with no set operation per ack (two before, five before that)', async () => {
    const dir = history();
    const onAcks = (spy: { mock: { calls: unknown[][] } }) =>
      spy.mock.calls.filter(([value]) => typeof value === 'string' && value.endsWith('.ack')).length;
    const adds = vi.spyOn(Set.prototype, 'add');
    const lookups = vi.spyOn(Set.prototype, 'has');
    let pending: string[];
    try {
      pending = await pendingSubjects(dir);
      // Each signal's ack found beside it in the sorted listing (before: noted once, looked up once).
      expect({ adds: onAcks(adds), lookups: onAcks(lookups) }).toEqual({ adds: 0, lookups: 0 });
    } finally {
      adds.mockRestore();
      lookups.mockRestore();
    }
    expect(pending).toEqual([`Question ${SIGNALS}`]);
  });

  it("finds a signal's ack past files whose names begin with the signal's", async () => {
    const dir = history();
    const [first] = readdirSync(dir).sort();
    // Sorted between a signal and its ack, or after it: neither is an ack, nor a signal of its own.
    for (const name of [`${first}-copy`, `${first}.aa`, `${first}.ack.old`]) writeFileSync(join(dir, name), '');
    expect(await pendingSubjects(dir)).toEqual([`Question ${SIGNALS}`]);
  });
});
