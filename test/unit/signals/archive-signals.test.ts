import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acknowledgeSignal, listSignals, openFederation, sendSignal, showSignal } from 'fed';
import { ackFileName, archiveDirectoryOf, readSignalBox } from 'fed/testing';
import { archiveSignals } from '../../../src/engine/delivery/archive-signals.js';
import { entries, signalFederation } from '../../helpers/signal-federation.js';

const fast = { durable: false };
const T0 = new Date('2026-03-01T09:00:00.000Z');
const at = (hours: number) => new Date(T0.getTime() + hours * 3_600_000);
const HOUR = 3_600_000;

/** Every file under the signal boxes of `root` with its content, wherever it moved. */
function contents(dir: string): string[] {
  const found: string[] = [];
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.includes(`${join('.fed', 'signals')}`)) found.push(readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return found.sort();
}

describe('archiveSignals', () => {
  it('moves acknowledged and answered signals older than the cutoff, with their acks; nothing is deleted and every signal stays findable', async () => {
    const fed = await signalFederation(['docs']);
    const old = (subject: string, type: 'directive' | 'question' = 'directive') =>
      sendSignal(openFederation(fed.root), { to: 'docs', type, subject }, { ...fast, now: () => at(0) });
    const acked = await Promise.all(['One', 'Two', 'Three'].map((s) => old(s)));
    for (const s of acked)
      await acknowledgeSignal(openFederation(fed.root), 'docs', s.message.id, { ...fast, now: () => at(0.5) });
    const unacked = await old('Still waiting');
    const answered = await old('Which?', 'question');
    await sendSignal(
      openFederation(fed.root),
      { from: 'docs', to: 'meta', type: 'report', subject: 'This', replyTo: answered.message.id },
      { ...fast, now: () => at(0.5) },
    );
    const young = await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'directive', subject: 'Young' },
      { ...fast, now: () => at(47) },
    );
    await acknowledgeSignal(openFederation(fed.root), 'docs', young.message.id, fast);
    const before = contents(fed.root);

    const results = await archiveSignals(
      openFederation(fed.root),
      { olderThanMs: 24 * HOUR },
      { ...fast, now: at(48) },
    );
    expect(results).toEqual([
      { team: 'meta', box: 'inbox', archived: 0, kept: 1 },
      // Outbox copies go when their inbox copy is acknowledged or answered.
      { team: 'meta', box: 'outbox', archived: 4, kept: 2 },
      { team: 'docs', box: 'inbox', archived: 4, kept: 2 },
      { team: 'docs', box: 'outbox', archived: 0, kept: 1 },
    ]);
    expect(contents(fed.root)).toEqual(before);

    const inbox = fed.team('docs').inbox;
    const archive = archiveDirectoryOf(inbox);
    const movedFiles = [...acked, answered].map((s) => s.file);
    expect(entries(archive)).toEqual([...movedFiles, ...acked.map((s) => ackFileName(s.file))].sort());
    expect(entries(inbox)).toEqual(['archive', unacked.file, young.file, ackFileName(young.file)].sort());
    // The live box readers (actor, monitor, list) no longer see them; --all and show do.
    expect(
      readSignalBox(inbox, { owner: 'docs', box: 'inbox' })
        .signals.map((s) => s.file)
        .sort(),
    ).toEqual([unacked.file, young.file].sort());
    expect((await listSignals(openFederation(fed.root), { team: 'docs' })).signals).toHaveLength(2);
    const all = await listSignals(openFederation(fed.root), { team: 'docs', all: true });
    expect(all.signals).toHaveLength(6);
    expect(
      all.signals.filter((s) => s.archived).map((s) => [s.message.subject, s.delivery.state, s.message.acknowledged]),
    ).toEqual([
      // Sent at one clock reading: stamped a millisecond apart, so listed in the order sent.
      ['One', 'acknowledged', true],
      ['Two', 'acknowledged', true],
      ['Three', 'acknowledged', true],
      ['Which?', 'answered', false],
    ]);
    const shown = await showSignal(openFederation(fed.root), acked[0]!.message.id);
    expect(shown).toMatchObject({
      archived: true,
      box: 'inbox',
      path: join(archive, acked[0]!.file),
      delivery: { state: 'acknowledged' },
    });
    expect(
      (await listSignals(openFederation(fed.root), { team: 'meta', box: 'outbox', all: true })).signals,
    ).toHaveLength(6);

    // A second run finds nothing more to do.
    expect(
      (await archiveSignals(openFederation(fed.root), { olderThanMs: 24 * HOUR }, { ...fast, now: at(48) })).reduce(
        (n, r) => n + r.archived,
        0,
      ),
    ).toBe(0);
  });

  it('keeps both signals when a reused name is archived again, and finishes a move a crash interrupted', async () => {
    const fed = await signalFederation(['docs']);
    const inbox = fed.team('docs').inbox;
    const archive = archiveDirectoryOf(inbox);
    const first = await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'report', subject: 'Daily' },
      { ...fast, now: () => at(0) },
    );
    await acknowledgeSignal(openFederation(fed.root), 'docs', first.message.id, fast);
    await archiveSignals(openFederation(fed.root), { team: 'docs', olderThanMs: HOUR }, { ...fast, now: at(2) });
    // The live name is free again, so a signal of the same second and subject takes it.
    const second = await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'report', subject: 'Daily' },
      { ...fast, now: () => at(0) },
    );
    expect(second.file).toBe(first.file);
    await acknowledgeSignal(openFederation(fed.root), 'docs', second.message.id, fast);
    // A crash after the archive links, before the live names were removed.
    const suffixed = first.file.replace('.json', '-2.json');
    linkSync(second.inboxPath, join(archive, suffixed));
    linkSync(join(inbox, ackFileName(second.file)), join(archive, ackFileName(suffixed)));
    await archiveSignals(openFederation(fed.root), { team: 'docs', olderThanMs: HOUR }, { ...fast, now: at(2) });

    expect(entries(inbox)).toEqual(['archive']);
    const archived = (await listSignals(openFederation(fed.root), { team: 'docs', all: true })).signals;
    expect(archived.map((s) => s.message.id).sort()).toEqual([first.message.id, second.message.id].sort());
    expect(archived.every((s) => s.archived && s.message.acknowledged)).toBe(true);
    expect(existsSync(join(archive, ackFileName(first.file)))).toBe(true);
    expect(entries(archive)).toEqual([first.file, ackFileName(first.file), suffixed, ackFileName(suffixed)].sort());
    expect((await showSignal(openFederation(fed.root), second.message.id)).path).toBe(join(archive, suffixed));
  });

  it('removes an ack a crash left in the live inbox after its signal was archived, and nothing else', async () => {
    const fed = await signalFederation(['docs']);
    const inbox = fed.team('docs').inbox;
    const archive = archiveDirectoryOf(inbox);
    const done = await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'report', subject: 'Done' },
      { ...fast, now: () => at(0) },
    );
    await acknowledgeSignal(openFederation(fed.root), 'docs', done.message.id, fast);
    // A crash between removing the live signal and removing its live ack.
    mkdirSync(archive);
    linkSync(done.inboxPath, join(archive, done.file));
    linkSync(join(inbox, ackFileName(done.file)), join(archive, ackFileName(done.file)));
    unlinkSync(done.inboxPath);
    // An ack whose signal is nowhere is someone else's business: it stays.
    writeFileSync(join(inbox, 'stray.json.ack'), '{"acknowledged":true,"acknowledged_at":"2026-03-01T09:00:00.000Z"}');

    await archiveSignals(openFederation(fed.root), { team: 'docs', olderThanMs: HOUR }, { ...fast, now: at(2) });
    expect(entries(inbox)).toEqual(['archive', 'stray.json.ack']);
    expect(entries(archive)).toEqual([done.file, ackFileName(done.file)]);
    expect((await showSignal(openFederation(fed.root), done.message.id)).delivery.state).toBe('acknowledged');
  });

  it('a retry of a signal archived since is not delivered again: it answers with the archived copies', async () => {
    const fed = await signalFederation(['docs']);
    const id = '3f2b8a34-7c1e-4d5a-9b0e-2f6c8d4e1a7b';
    const request = { to: 'docs', type: 'report' as const, subject: 'Weekly', body: 'All green', id };
    const first = await sendSignal(openFederation(fed.root), request, { ...fast, now: () => at(0) });
    await acknowledgeSignal(openFederation(fed.root), 'docs', id, fast);
    await archiveSignals(openFederation(fed.root), { olderThanMs: HOUR }, { ...fast, now: at(2) });

    const retry = await sendSignal(openFederation(fed.root), request, { ...fast, now: () => at(3) });
    expect(retry).toMatchObject({
      delivered: false,
      message: first.message,
      inboxPath: join(archiveDirectoryOf(fed.team('docs').inbox), first.file),
      outboxPath: join(archiveDirectoryOf(fed.meta.outbox), first.file),
    });
    expect(entries(fed.team('docs').inbox)).toEqual(['archive']);
    expect(entries(fed.meta.outbox)).toEqual(['archive']);
  });
});
