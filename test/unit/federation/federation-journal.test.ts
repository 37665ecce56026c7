import { appendFileSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { initFederation, openFederation, readFederationJournal } from 'fed';
import { federationPaths } from 'fed/testing';
import { recordFederationEvent } from '../../../src/engine/federation/federation-journal.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('federation journal (.fed/journal.jsonl)', () => {
  it('appends validated, time-stamped records and reads them back in order', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const at = new Date('2026-11-22T10:00:00.000Z');
    await recordFederationEvent(
      openFederation(root).backend,
      { kind: 'status', team: 'docs', from: 'active', to: 'paused' },
      at,
    );
    await recordFederationEvent(
      openFederation(root).backend,
      { kind: 'removed', team: 'docs', location: '/x', forced: false },
      at,
    );
    expect(await readFederationJournal(openFederation(root).backend)).toEqual([
      { kind: 'status', team: 'docs', from: 'active', to: 'paused', at: '2026-11-22T10:00:00.000Z' },
      { kind: 'removed', team: 'docs', location: '/x', forced: false, at: '2026-11-22T10:00:00.000Z' },
    ]);
    await expect(
      recordFederationEvent(openFederation(root).backend, { kind: 'status', team: '', from: 'a', to: 'b' }),
    ).rejects.toThrow();
  });

  it('a line torn by a crash mid-append is skipped and never swallows the next record', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    await recordFederationEvent(openFederation(root).backend, {
      kind: 'status',
      team: 'docs',
      from: 'active',
      to: 'paused',
    });
    appendFileSync(federationPaths(root).federationJournal, '{"kind":"status","team":"do');
    await recordFederationEvent(openFederation(root).backend, {
      kind: 'status',
      team: 'docs',
      from: 'paused',
      to: 'active',
    });
    expect((await readFederationJournal(openFederation(root).backend)).map((r) => r.kind === 'status' && r.to)).toEqual(
      ['paused', 'active'],
    );
    expect(readFileSync(federationPaths(root).federationJournal, 'utf8').split('\n')).toHaveLength(4);
  });
});
