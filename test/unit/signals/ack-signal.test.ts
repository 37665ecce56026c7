import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acknowledgeAll, acknowledgeSignal, FedError, listSignals, openFederation, sendSignal } from 'fed';
import { writeRegistryStatus } from 'fed/testing';
import { signalAckSchema } from '../../../src/core/schema/signal.js';
import { entries, signalFederation } from '../../helpers/signal-federation.js';

const fast = { durable: false };
const at = (iso: string) => ({ ...fast, now: () => new Date(iso) });

async function refusedCode(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(FedError);
    expect((error as FedError).refusal).toBe(true);
    return (error as FedError).code;
  }
  throw new Error('expected a refusal');
}

describe('acknowledging signals (docs/design/spec.md §4.3)', () => {
  it('writes <signal-file>.json.ack beside the signal with {acknowledged, acknowledged_at}', async () => {
    const fed = await signalFederation(['docs']);
    const sent = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'directive', subject: 'Go' }, fast);
    const [result] = await acknowledgeSignal(
      openFederation(fed.root),
      'docs',
      sent.message.id,
      at('2026-01-31T12:30:00.000Z'),
    );
    expect(result?.ackPath).toBe(`${sent.inboxPath}.ack`);
    expect(result?.alreadyAcknowledged).toBe(false);
    const ack = JSON.parse(readFileSync(`${sent.inboxPath}.ack`, 'utf8')) as unknown;
    expect(ack).toEqual({ acknowledged: true, acknowledged_at: '2026-01-31T12:30:00.000Z' });
    expect(signalAckSchema.parse(ack)).toEqual(ack);
    expect(entries(fed.team('docs').inbox)).toEqual([sent.file, `${sent.file}.ack`]);
    expect((await listSignals(openFederation(fed.root), { team: 'docs' })).signals[0]?.message).toMatchObject({
      acknowledged: true,
      acknowledged_at: '2026-01-31T12:30:00.000Z',
    });
  });

  it('keeps the first acknowledgment time when acknowledged again', async () => {
    const fed = await signalFederation(['docs']);
    const sent = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'question', subject: 'Why' }, fast);
    await acknowledgeSignal(openFederation(fed.root), 'docs', sent.message.id, at('2026-01-31T12:30:00.000Z'));
    const [again] = await acknowledgeSignal(
      openFederation(fed.root),
      'docs',
      sent.file,
      at('2026-01-31T13:00:00.000Z'),
    );
    expect(again?.alreadyAcknowledged).toBe(true);
    expect(again?.signal.message.acknowledged_at).toBe('2026-01-31T12:30:00.000Z');
    expect(JSON.parse(readFileSync(`${sent.inboxPath}.ack`, 'utf8'))).toMatchObject({
      acknowledged_at: '2026-01-31T12:30:00.000Z',
    });
  });

  it('finds the signal by id (any case), file name, or absolute path inside the inbox', async () => {
    const fed = await signalFederation(['docs']);
    const a = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'A' }, fast);
    const b = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'B' }, fast);
    const c = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'C' }, fast);
    expect(
      (await acknowledgeSignal(openFederation(fed.root), 'docs', a.message.id.toUpperCase()))[0]?.signal.file,
    ).toBe(a.file);
    expect((await acknowledgeSignal(openFederation(fed.root), 'docs', b.file))[0]?.signal.file).toBe(b.file);
    expect((await acknowledgeSignal(openFederation(fed.root), 'docs', c.inboxPath))[0]?.signal.file).toBe(c.file);
    expect((await listSignals(openFederation(fed.root), { team: 'docs', unacknowledged: true })).signals).toEqual([]);
  });

  it('refuses unknown ids, files that are not in the inbox, and invalid files, writing no ack', async () => {
    const fed = await signalFederation(['docs']);
    const sent = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'Known' }, fast);
    const inbox = fed.team('docs').inbox;
    writeFileSync(join(inbox, 'broken.json'), '{');
    expect(
      await refusedCode(() =>
        acknowledgeSignal(openFederation(fed.root), 'docs', '11111111-2222-4333-8444-555555555555'),
      ),
    ).toBe('UNKNOWN_SIGNAL');
    expect(await refusedCode(() => acknowledgeSignal(openFederation(fed.root), 'docs', 'nothing-here.json'))).toBe(
      'UNKNOWN_SIGNAL',
    );
    expect(
      await refusedCode(() =>
        acknowledgeSignal(openFederation(fed.root), 'docs', `../../../signals/outbox/${sent.file}`),
      ),
    ).toBe('UNKNOWN_SIGNAL');
    expect(await refusedCode(() => acknowledgeSignal(openFederation(fed.root), 'docs', sent.outboxPath))).toBe(
      'UNKNOWN_SIGNAL',
    );
    expect(await refusedCode(() => acknowledgeSignal(openFederation(fed.root), 'docs', 'broken.json'))).toBe(
      'INVALID_SIGNAL',
    );
    expect(await refusedCode(() => acknowledgeSignal(openFederation(fed.root), 'ghost', sent.message.id))).toBe(
      'UNKNOWN_TEAM',
    );
    expect(entries(inbox)).toEqual(['broken.json', sent.file].sort());
    expect(entries(fed.meta.outbox)).toEqual([sent.file]);
  });

  it('refuses acknowledging in an archived team, whose history can still be listed', async () => {
    const fed = await signalFederation(['docs']);
    const sent = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'Old' }, fast);
    await writeRegistryStatus(openFederation(fed.root), 'docs', { type: 'ARCHIVE' }, fast);
    expect(await refusedCode(() => acknowledgeSignal(openFederation(fed.root), 'docs', sent.message.id))).toBe(
      'TEAM_ARCHIVED',
    );
    expect((await listSignals(openFederation(fed.root), { team: 'docs' })).signals).toHaveLength(1);
  });

  it('acknowledges every unacknowledged signal with --all, leaving earlier acks and invalid files alone', async () => {
    const fed = await signalFederation(['docs']);
    const sent = [];
    for (const subject of ['one', 'two', 'three'])
      sent.push(await sendSignal(openFederation(fed.root), { to: 'docs', type: 'directive', subject }, fast));
    await acknowledgeSignal(openFederation(fed.root), 'docs', sent[0]!.message.id, at('2026-01-31T10:00:00.000Z'));
    writeFileSync(join(fed.team('docs').inbox, 'junk.json'), 'junk');
    const result = await acknowledgeAll(openFederation(fed.root), 'docs', at('2026-01-31T11:00:00.000Z'));
    expect(result.acknowledged.map((a) => a.signal.file).sort()).toEqual([sent[1]!.file, sent[2]!.file].sort());
    expect(result.invalid.map((i) => i.file)).toEqual(['junk.json']);
    const acks = (await listSignals(openFederation(fed.root), { team: 'docs' })).signals.map(
      (s) => s.message.acknowledged_at,
    );
    expect(acks.sort()).toEqual(['2026-01-31T10:00:00.000Z', '2026-01-31T11:00:00.000Z', '2026-01-31T11:00:00.000Z']);
    expect((await acknowledgeAll(openFederation(fed.root), 'docs', fast)).acknowledged).toEqual([]);
    expect(entries(fed.team('docs').inbox)).toContain('junk.json');
  });

  it('supersedes an ack file that says "not acknowledged", and quarantines a corrupt one in the way of an ack by id (--all goes on with the rest, leaving it to the actor)', async () => {
    const fed = await signalFederation(['docs']);
    const a = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'A' }, fast);
    const b = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'B' }, fast);
    writeFileSync(
      `${a.inboxPath}.ack`,
      JSON.stringify({ acknowledged: false, acknowledged_at: '2026-01-01T00:00:00Z' }),
    );
    const [result] = await acknowledgeSignal(
      openFederation(fed.root),
      'docs',
      a.message.id,
      at('2026-01-31T12:00:00.000Z'),
    );
    expect(result?.alreadyAcknowledged).toBe(false);
    expect(JSON.parse(readFileSync(`${a.inboxPath}.ack`, 'utf8'))).toEqual({
      acknowledged: true,
      acknowledged_at: '2026-01-31T12:00:00.000Z',
    });

    writeFileSync(`${b.inboxPath}.ack`, 'garbage');
    const [fixed] = await acknowledgeSignal(openFederation(fed.root), 'docs', b.message.id);
    expect(fixed?.alreadyAcknowledged).toBe(false);
    expect(fixed?.quarantinedAck?.reason).toMatch(/^an unusable ack file: not valid JSON/);
    // Moved, never deleted: the quarantined copy is the garbage, the slot holds the real ack.
    expect(readFileSync(fixed!.quarantinedAck!.path, 'utf8')).toBe('garbage');
    expect(JSON.parse(readFileSync(`${b.inboxPath}.ack`, 'utf8'))).toMatchObject({ acknowledged: true });
    const d = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'D' }, fast);
    writeFileSync(`${d.inboxPath}.ack`, 'garbage');
    const c = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'C' }, fast);
    const all = await acknowledgeAll(openFederation(fed.root), 'docs', fast);
    expect(all.acknowledged.map((r) => r.signal.file)).toEqual([c.file]);
    expect(all.invalid.map((i) => i.file)).toEqual([`${d.file}.ack`]);
    expect(readFileSync(`${d.inboxPath}.ack`, 'utf8')).toBe('garbage');
  });
});
