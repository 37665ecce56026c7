import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acknowledgeSignal, InvalidInputError, openFederation, sendSignal } from 'fed';
import { listSignals } from '../../../src/engine/messaging/list-signals.js';
import { signalFederation } from '../../helpers/signal-federation.js';

const fast = { durable: false };

describe('listSignals', () => {
  it('filters by acknowledgment, type and sender, and always reports the invalid files', async () => {
    const fed = await signalFederation(['docs', 'api']);
    const t = (s: number) => ({ ...fast, now: () => new Date(Date.UTC(2026, 0, 31, 12, 0, s)) });
    const a = await sendSignal(
      openFederation(fed.root),
      { from: 'docs', to: 'meta', type: 'report', subject: 'a' },
      t(1),
    );
    const b = await sendSignal(
      openFederation(fed.root),
      { from: 'api', to: 'meta', type: 'alert', subject: 'b' },
      t(2),
    );
    const c = await sendSignal(
      openFederation(fed.root),
      { from: 'api', to: 'meta', type: 'report', subject: 'c' },
      t(3),
    );
    await acknowledgeSignal(openFederation(fed.root), 'meta', c.message.id, fast);
    writeFileSync(join(fed.meta.inbox, 'x.json'), 'nope');

    const files = async (query: Parameters<typeof listSignals>[1]) =>
      (await listSignals(openFederation(fed.root), query)).signals.map((s) => s.file);
    expect(await files({})).toEqual([a.file, b.file, c.file]);
    expect(await files({ unacknowledged: true })).toEqual([a.file, b.file]);
    expect(await files({ type: 'report' })).toEqual([a.file, c.file]);
    expect(await files({ from: 'api', unacknowledged: true })).toEqual([b.file]);
    expect(await files({ team: 'api', box: 'outbox' })).toEqual([b.file, c.file]);
    const listing = await listSignals(openFederation(fed.root), { type: 'question' });
    expect(listing).toMatchObject({ team: 'meta', box: 'inbox', dir: fed.meta.inbox, signals: [] });
    expect(listing.invalid.map((i) => i.file)).toEqual(['x.json']);
  });

  it('refuses --unacked on an outbox and unknown types or boxes', async () => {
    const fed = await signalFederation([]);
    await expect(listSignals(openFederation(fed.root), { box: 'outbox', unacknowledged: true })).rejects.toThrow(
      /--unacked applies to an inbox/,
    );
    await expect(listSignals(openFederation(fed.root), { type: 'memo' })).rejects.toThrow(InvalidInputError);
    await expect(listSignals(openFederation(fed.root), { box: 'trash' as 'inbox' })).rejects.toThrow(InvalidInputError);
  });
});
