import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFederation, RefusedError, sendSignal } from 'fed';
import { quarantineReasonSchema, readSignalBox } from 'fed/testing';
import { quarantineDirectory, quarantineSignalFile } from '../../../src/adapters/file/signals/quarantine.js';
import { entries, signalFederation } from '../../helpers/signal-federation.js';

describe('quarantining an invalid signal file', () => {
  it('moves it with its exact bytes to .fed/signals/quarantine/ with a reason file, and the box reads clean', async () => {
    const fed = await signalFederation(['docs']);
    const docs = fed.team('docs');
    const good = await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'report', subject: 'fine' },
      { durable: false },
    );
    writeFileSync(join(docs.inbox, 'bad.json'), '{"half": ');
    const [invalid] = readSignalBox(docs.inbox, { owner: 'docs', box: 'inbox' }).invalid;

    const result = quarantineSignalFile(invalid!, { now: () => new Date('2026-01-31T12:00:00.000Z') });
    const quarantine = quarantineDirectory(docs.workspace);
    expect(quarantine).toBe(join(docs.workspace, '.fed', 'signals', 'quarantine'));
    expect(result).toEqual({
      path: join(quarantine, 'bad.json'),
      reasonPath: join(quarantine, 'bad.json.reason.json'),
    });
    expect(readFileSync(result.path, 'utf8')).toBe('{"half": ');
    const reason = quarantineReasonSchema.parse(JSON.parse(readFileSync(result.reasonPath, 'utf8')));
    expect(reason).toEqual({
      file: 'bad.json',
      originalPath: join(docs.inbox, 'bad.json'),
      quarantinedAt: '2026-01-31T12:00:00.000Z',
      reason: invalid!.reason,
    });
    expect(entries(docs.inbox)).toEqual([good.file]);
    expect(readSignalBox(docs.inbox, { owner: 'docs', box: 'inbox' })).toMatchObject({
      invalid: [],
      signals: [{ file: good.file }],
    });
  });

  it('never overwrites an earlier quarantined file of the same name', async () => {
    const fed = await signalFederation(['docs']);
    const docs = fed.team('docs');
    for (const content of ['first', 'second', 'third']) {
      writeFileSync(join(docs.inbox, 'same.json'), content);
      quarantineSignalFile({ path: join(docs.inbox, 'same.json'), reason: `bad ${content}` });
    }
    const quarantine = quarantineDirectory(docs.workspace);
    expect(entries(quarantine)).toEqual([
      'same-2.json',
      'same-2.json.reason.json',
      'same-3.json',
      'same-3.json.reason.json',
      'same.json',
      'same.json.reason.json',
    ]);
    expect(['same.json', 'same-2.json', 'same-3.json'].map((f) => readFileSync(join(quarantine, f), 'utf8'))).toEqual([
      'first',
      'second',
      'third',
    ]);
    expect(JSON.parse(readFileSync(join(quarantine, 'same-3.json.reason.json'), 'utf8'))).toMatchObject({
      file: 'same.json',
      reason: 'bad third',
    });
  });

  it('quarantines from an outbox too, and refuses files that are not in a signal box or are gone', async () => {
    const fed = await signalFederation([]);
    writeFileSync(join(fed.meta.outbox, 'odd.json'), '[]');
    quarantineSignalFile({ path: join(fed.meta.outbox, 'odd.json'), reason: 'not an object' });
    expect(entries(quarantineDirectory(fed.root))).toEqual(['odd.json', 'odd.json.reason.json']);

    const config = join(fed.root, 'federate.config.json');
    expect(() => quarantineSignalFile({ path: config, reason: 'x' })).toThrow(RefusedError);
    expect(entries(fed.root)).toContain('federate.config.json');
    expect(() => quarantineSignalFile({ path: join(fed.meta.inbox, 'gone.json'), reason: 'x' })).toThrow(
      /no longer exists/,
    );
  });
});
