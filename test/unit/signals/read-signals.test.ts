import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_SIGNAL_BYTES, toJsonText } from 'fed/testing';
import { readSignalBox, SignalBoxReader } from '../../../src/adapters/file/signals/read-signals.js';
import { entries } from '../../helpers/signal-federation.js';
import { tempDir } from '../../helpers/temp-dir.js';

let counter = 0;
function signal(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  return {
    id: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    timestamp: `2026-01-31T12:00:${String(counter % 60).padStart(2, '0')}Z`,
    from: 'meta',
    to: 'docs',
    type: 'report',
    subject: `Signal ${counter}`,
    body: 'b',
    protocol: 'file-signal-v1',
    ...overrides,
  };
}

function inbox(): string {
  const dir = join(tempDir('fed-read-'), 'inbox');
  mkdirSync(dir);
  return dir;
}

function put(dir: string, name: string, content: unknown): void {
  writeFileSync(join(dir, name), typeof content === 'string' ? content : toJsonText(content));
}

const QUIET_MS = 40;
/** Let the box be quiet for longer than the reader's quiet period, as a box is between deliveries. */
const settle = () => new Promise((resolve) => setTimeout(resolve, QUIET_MS + 10));

describe('reading a signal box', () => {
  it('lists valid signals and reports every bad file by name and reason without hiding, moving or deleting any', () => {
    const dir = inbox();
    put(dir, 'a-good.json', signal({ subject: 'good one' }));
    put(dir, 'b-not-json.json', '{"id": ');
    put(dir, 'c-protocol.json', signal({ protocol: 'file-signal-v0' }));
    const { body: _body, ...missing } = signal();
    put(dir, 'd-missing.json', missing);
    put(dir, 'e-extra.json', signal({ priority: 'high' }));
    put(dir, 'f-wrong-to.json', signal({ to: 'api' }));
    put(dir, 'g-empty.json', '');
    put(dir, 'h-blank.json', ' \n\t ');
    put(dir, 'i-huge.json', `"${'x'.repeat(MAX_SIGNAL_BYTES)}"`);
    mkdirSync(join(dir, 'j-dir.json'));
    symlinkSync('/etc/hostname', join(dir, 'k-link.json'));
    put(dir, 'l-array.json', '[]');
    put(dir, 'z-good.json', signal({ subject: 'another good one' }));
    // Not signal files at all: ignored, not reported.
    put(dir, 'notes.txt', 'hello');
    put(dir, '.z-good.json.123.abcdef.tmp', '{"half":');
    const before = entries(dir);

    const { signals, invalid } = readSignalBox(dir, { owner: 'docs', box: 'inbox' });
    expect(signals.map((s) => s.file).sort()).toEqual(['a-good.json', 'z-good.json']);
    const reasons = Object.fromEntries(invalid.map((i) => [i.file, i.reason]));
    expect(Object.keys(reasons)).toEqual([
      'b-not-json.json',
      'c-protocol.json',
      'd-missing.json',
      'e-extra.json',
      'f-wrong-to.json',
      'g-empty.json',
      'h-blank.json',
      'i-huge.json',
      'j-dir.json',
      'k-link.json',
      'l-array.json',
    ]);
    expect(reasons['b-not-json.json']).toMatch(/^not valid JSON at line 1, column 8/);
    expect(reasons['c-protocol.json']).toMatch(/protocol: expected "file-signal-v1", got "file-signal-v0"/);
    expect(reasons['d-missing.json']).toMatch(/body: expected a string, got nothing/);
    expect(reasons['e-extra.json']).toMatch(/unknown key\(s\) "priority"/);
    expect(reasons['f-wrong-to.json']).toBe('addressed to "api", but this is the inbox of "docs"');
    expect(reasons['g-empty.json']).toBe('the file is empty');
    expect(reasons['h-blank.json']).toMatch(/empty/);
    expect(reasons['i-huge.json']).toMatch(/over the 1048576-byte limit/);
    expect(reasons['j-dir.json']).toBe('a directory, not a regular file');
    expect(reasons['k-link.json']).toBe('a symbolic link, not a signal file');
    expect(reasons['l-array.json']).toMatch(/expected an object, got an array/);
    expect(invalid.every((i) => i.path === join(dir, i.file))).toBe(true);
    expect(entries(dir)).toEqual(before);
  });

  it('reads a signal saved with a byte-order mark, and calls a file of only one empty', () => {
    const dir = inbox();
    put(dir, 'a-bom.json', `\uFEFF${toJsonText(signal({ subject: 'from an editor' }))}`);
    put(dir, 'b-only-bom.json', '\uFEFF\n');
    const { signals, invalid } = readSignalBox(dir, { owner: 'docs', box: 'inbox' });
    expect(signals.map((s) => s.message.subject)).toEqual(['from an editor']);
    expect(invalid.map((i) => [i.file, i.reason])).toEqual([
      ['b-only-bom.json', 'the file is empty (only whitespace)'],
    ]);
  });

  it('merges an ack written after the first read into a new entry, leaving the one handed out before as it was', () => {
    const dir = inbox();
    put(dir, 'a.json', signal({ subject: 'later acknowledged' }));
    const reader = new SignalBoxReader(dir, { owner: 'docs', box: 'inbox' }, { quietDirectoryMs: 60_000 });
    const [before] = reader.read().signals;
    expect(before!.message).toMatchObject({ subject: 'later acknowledged', acknowledged: false });
    put(dir, 'a.json.ack', { acknowledged: true, acknowledged_at: '2026-02-01T00:00:00Z' });
    const [after] = reader.read().signals;
    expect(after!.message).toMatchObject({ acknowledged: true, acknowledged_at: '2026-02-01T00:00:00Z' });
    expect(Object.keys(after!.message).slice(-2)).toEqual(['acknowledged', 'acknowledged_at']);
    expect(before!.message.acknowledged).toBe(false);
    expect(Object.isFrozen(after!.message)).toBe(true);
  });

  it('sorts by timestamp (not by file name), then by file name', () => {
    const dir = inbox();
    put(dir, '1.json', signal({ timestamp: '2026-01-31T12:00:03Z' }));
    put(dir, '2.json', signal({ timestamp: '2026-01-31T13:00:01+02:00' })); // 11:00:01Z
    put(dir, '3.json', signal({ timestamp: '2026-01-31T12:00:02.500Z' }));
    put(dir, '0.json', signal({ timestamp: '2026-01-31T12:00:03Z' }));
    const files = readSignalBox(dir, { owner: 'docs', box: 'inbox' }).signals.map((s) => s.file);
    expect(files).toEqual(['2.json', '3.json', '0.json', '1.json']);
  });

  it('takes acknowledged/acknowledged_at from the ack file only, and reports a broken ack file', () => {
    const dir = inbox();
    put(dir, 'acked.json', signal());
    put(dir, 'acked.json.ack', { acknowledged: true, acknowledged_at: '2026-01-31T12:30:00Z' });
    put(dir, 'claims.json', signal({ acknowledged: true, acknowledged_at: '2026-01-31T12:30:00Z' }));
    put(dir, 'broken.json', signal());
    put(dir, 'broken.json.ack', 'yes');
    put(dir, 'orphan.json.ack', { acknowledged: true, acknowledged_at: '2026-01-31T12:30:00Z' });
    const { signals, invalid } = readSignalBox(dir, { owner: 'docs', box: 'inbox' });
    const byFile = Object.fromEntries(signals.map((s) => [s.file, s.message]));
    expect(byFile['acked.json']).toMatchObject({ acknowledged: true, acknowledged_at: '2026-01-31T12:30:00Z' });
    expect(byFile['claims.json']?.acknowledged).toBe(false);
    expect(byFile['claims.json']).not.toHaveProperty('acknowledged_at');
    expect(byFile['broken.json']?.acknowledged).toBe(false);
    expect(invalid.map((i) => i.file)).toEqual(['broken.json.ack']);
    expect(invalid[0]?.reason).toMatch(/not valid JSON/);
  });

  it('expects an outbox to hold signals from its owner, and ignores ack files there', () => {
    const dir = inbox();
    put(dir, 'mine.json', signal({ from: 'docs', to: 'meta' }));
    put(dir, 'theirs.json', signal({ from: 'api', to: 'meta' }));
    put(dir, 'mine.json.ack', 'not looked at');
    const { signals, invalid } = readSignalBox(dir, { owner: 'docs', box: 'outbox' });
    expect(signals.map((s) => s.file)).toEqual(['mine.json']);
    expect(signals[0]?.message).not.toHaveProperty('acknowledged');
    expect(invalid).toEqual([
      {
        file: 'theirs.json',
        path: join(dir, 'theirs.json'),
        reason: 'sent by "api", but this is the outbox of "docs"',
      },
    ]);
  });

  it('treats a box that does not exist yet as empty', () => {
    expect(readSignalBox(join(tempDir(), 'nope'), { owner: 'docs', box: 'inbox' })).toEqual({
      signals: [],
      invalid: [],
    });
  });
});

describe('incremental re-reads', () => {
  it('re-polls an unchanged box with one directory stat, and parses only new files after a change', async () => {
    const dir = inbox();
    for (let i = 0; i < 20; i++) put(dir, `s${i}.json`, signal());
    const reader = new SignalBoxReader(dir, { owner: 'docs', box: 'inbox' }, { quietDirectoryMs: QUIET_MS });
    await settle();
    expect(reader.read().signals).toHaveLength(20);
    expect(reader.lastWork).toEqual({ listed: true, statted: 21, parsed: 20 });

    expect(reader.read().signals).toHaveLength(20);
    expect(reader.lastWork).toEqual({ listed: false, statted: 1, parsed: 0 });

    put(dir, 'new.json', signal());
    put(dir, 's0.json.ack', { acknowledged: true, acknowledged_at: '2026-01-31T12:30:00Z' });
    const after = reader.read();
    expect(reader.lastWork).toMatchObject({ listed: true, parsed: 2 });
    expect(after.signals).toHaveLength(21);
    expect(after.signals.find((s) => s.file === 's0.json')?.message.acknowledged).toBe(true);
  });

  it('lists a recently changed box again even when its stat looks the same (coarse directory clocks)', () => {
    const dir = inbox();
    put(dir, 'a.json', signal());
    const reader = new SignalBoxReader(dir, { owner: 'docs', box: 'inbox' }, { quietDirectoryMs: 60_000 });
    reader.read();
    reader.read();
    expect(reader.lastWork).toEqual({ listed: true, statted: 1, parsed: 0 });
  });

  it('drops files that left the box, and a verifying read re-parses a file changed in place', () => {
    const dir = inbox();
    put(dir, 'a.json', signal({ subject: 'first' }));
    put(dir, 'b.json', signal());
    const reader = new SignalBoxReader(dir, { owner: 'docs', box: 'inbox' });
    expect(reader.read().signals).toHaveLength(2);

    rmSync(join(dir, 'b.json'));
    expect(reader.read().signals.map((s) => s.file)).toEqual(['a.json']);

    put(dir, 'a.json', signal({ subject: 'rewritten in place, longer than before' }));
    expect(reader.read({ verify: true }).signals[0]?.message.subject).toBe('rewritten in place, longer than before');
    expect(reader.lastWork.parsed).toBe(1);
    put(dir, 'a.json', '{ broken');
    expect(reader.read({ verify: true }).invalid.map((i) => i.file)).toEqual(['a.json']);
  });

  it('checks just the named files for the fs.watch fast path, without listing the box', () => {
    const dir = inbox();
    for (let i = 0; i < 10; i++) put(dir, `s${i}.json`, signal());
    const reader = new SignalBoxReader(dir, { owner: 'docs', box: 'inbox' });
    reader.read();
    put(dir, 'new.json', signal({ subject: 'new' }));
    put(dir, 'bad.json', 'nope');
    const named = reader.readNames(['new.json', 'bad.json', '.new.json.1.ab.tmp', 'gone.json', 'notes.txt']);
    expect(named.signals.map((s) => s.file)).toEqual(['new.json']);
    expect(named.invalid.map((i) => i.file)).toEqual(['bad.json']);
    expect(reader.lastWork).toEqual({ listed: false, statted: 3, parsed: 2 });
    // The cache now knows them: a full read lists the box but parses nothing again.
    expect(reader.read().signals).toHaveLength(11);
    expect(reader.lastWork.parsed).toBe(0);
  });

  it('returns arrays the caller may change and frozen entries, so the cache cannot be corrupted', () => {
    const dir = inbox();
    put(dir, 'a.json', signal({ subject: 'original' }));
    const reader = new SignalBoxReader(dir, { owner: 'docs', box: 'inbox' });
    const first = reader.read();
    expect(() => {
      (first.signals[0]!.message as { subject: string }).subject = 'changed';
    }).toThrow(TypeError);
    first.signals.pop();
    expect(reader.read().signals.map((s) => s.message.subject)).toEqual(['original']);
  });
});
