import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { pendingFileBatches } from '../../../src/adapters/file/pending-file-batches.js';
import { ackFileName, signalFileName } from '../../../src/adapters/file/signals/signal-file-name.js';
import { toJsonText } from '../../../src/core/json-text.js';
import { signalMessageSchema } from '../../../src/core/schema/signal.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * `fed team show` lists a team's pending signals with its acks taken as listed (trustAcks): a long-lived
 * team's inbox holds its whole history, a signal and an ack each, and what the listing costs beyond
 * reading the folder grows with it. Each ack name is noted once and looked up once for its signal; before,
 * it went into two sets and was looked up three times (five set operations per ack instead of two).
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

describe('pending signals with trusted acks', () => {
  it('finds the one pending signal with two set operations per ack, not five', async () => {
    const dir = history();
    const onAcks = (spy: { mock: { calls: unknown[][] } }) =>
      spy.mock.calls.filter(([value]) => typeof value === 'string' && value.endsWith('.ack')).length;
    const adds = vi.spyOn(Set.prototype, 'add');
    const lookups = vi.spyOn(Set.prototype, 'has');
    const pending: string[] = [];
    try {
      const batches = pendingFileBatches(dir, { owner: 'helper', box: 'inbox' }, new Set(), {
        batchSize: 10,
        verify: false,
        settleMs: 0,
        trustAcks: true,
      });
      for await (const batch of batches) pending.push(...batch.signals.map((s) => s.message.subject));
      // Each ack noted once; each signal's ack looked up once, and the pending one's among the broken too.
      expect({ adds: onAcks(adds), lookups: onAcks(lookups) }).toEqual({ adds: SIGNALS, lookups: SIGNALS + 2 });
    } finally {
      adds.mockRestore();
      lookups.mockRestore();
    }
    expect(pending).toEqual([`Question ${SIGNALS}`]);
  });
});
