import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readSignalBox, signalFileName } from 'fed/testing';
import { startFixture } from '../helpers/fixture-process.js';
import { signalFederation } from '../helpers/signal-federation.js';

describe('no clobber between processes (docs/design/invariants.md #2)', () => {
  it('delivers all 400 signals when 2 processes each send 200 with the same type and subject in the same second', async () => {
    const fed = await signalFederation(['docs', 'api']);
    const second = new Date(Math.floor(Date.now() / 1000) * 1000 + 120_000).toISOString();
    const args = (from: string) => [
      '--root',
      fed.root,
      '--from',
      from,
      '--to',
      'meta',
      '--count',
      '200',
      '--subject',
      'Same subject',
      '--type',
      'alert',
      '--fixed-time',
      second,
    ];
    const senders = [startFixture('send-signals.mjs', args('docs')), startFixture('send-signals.mjs', args('api'))];
    for (const result of await Promise.all(senders.map((s) => s.done))) {
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    }

    const base = signalFileName({ timestamp: second, type: 'alert', subject: 'Same subject' });
    const names = readdirSync(fed.meta.inbox);
    expect(names).toHaveLength(400);
    expect(names).toContain(base);
    expect(names.every((n) => n === base || /-\d+\.json$/.test(n))).toBe(true);

    const { signals, invalid } = readSignalBox(fed.meta.inbox, { owner: 'meta', box: 'inbox' });
    expect(invalid).toEqual([]);
    expect(new Set(signals.map((s) => s.message.id)).size).toBe(400);
    expect(new Set(signals.map((s) => s.message.body)).size).toBe(400);
    // One clock reading: each process stamps its sends a millisecond apart (the order sent), all in that second.
    expect(new Set(signals.map((s) => s.message.timestamp.slice(0, 19)))).toEqual(new Set([second.slice(0, 19)]));
    for (const team of ['docs', 'api']) {
      const outbox = readSignalBox(fed.team(team).outbox, { owner: team, box: 'outbox' });
      expect(outbox.invalid).toEqual([]);
      expect(outbox.signals).toHaveLength(200);
    }
  });
});
