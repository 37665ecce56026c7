import { describe, expect, it, vi } from 'vitest';

// Every node:fs call, by name and first argument (test/helpers/fs-calls.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../helpers/fs-calls.js')).countingFs(await importOriginal()),
);

const { existsSync, readdirSync, writeFileSync } = await import('node:fs');
const { basename, dirname, join } = await import('node:path');
const { acknowledgeSignal, initFederation, onboardTeam } = await import('../../src/index.js');
const { openFederation } = await import('../../src/engine/context.js');
const { isSignalFileName, signalFileName } = await import('../../src/adapters/file/signals/signal-file-name.js');
const { workspacePaths } = await import('../../src/core/layout.js');
const { toJsonText } = await import('../../src/core/json-text.js');
const { counted } = await import('../helpers/fs-calls.js');
const { tempDir } = await import('../helpers/temp-dir.js');
type SignalMessage = import('../../src/index.js').SignalMessage;

const SIGNALS = 2_000;

function message(i: number): SignalMessage {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1_000).toISOString(),
    from: 'meta',
    to: 'docs',
    type: 'report',
    subject: `Status ${i}`,
    body: 'x',
    protocol: 'file-signal-v1',
  };
}

/** A team whose inbox holds signals another tool wrote: no sent fact points to any of them. */
async function inboxWrittenByAnotherTool(count: number): Promise<{ root: string; inbox: string; state: string }> {
  const root = tempDir();
  initFederation(root, {}, {});
  const entry = await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
  const { inbox, state } = workspacePaths(entry.location);
  for (let i = 0; i < count; i++) writeFileSync(join(inbox, signalFileName(message(i))), toJsonText(message(i)));
  return { root, inbox, state };
}

/** Acknowledge `id` by id as `fed signal ack <id>` does; the signal files of the inbox it opened (not acks, not temp files). */
async function ackCountingReads(root: string, inbox: string, id: string): Promise<string[]> {
  const { calls } = await counted(() => acknowledgeSignal(openFederation(root), 'docs', id, { durable: false }));
  return calls
    .filter((c) => c.op === 'openSync' && dirname(c.path) === inbox && isSignalFileName(basename(c.path)))
    .map((c) => c.path);
}

const ackOf = (inbox: string, i: number) => join(inbox, `${signalFileName(message(i))}.ack`);

describe('fed signal ack <id> of a signal no sent fact points to', () => {
  it(`reads the inbox once; after that, one signal file per ack in an inbox of ${SIGNALS}`, async () => {
    const { root, inbox } = await inboxWrittenByAnotherTool(SIGNALS);

    const first = await ackCountingReads(root, inbox, message(10).id);
    expect(first.length).toBeGreaterThanOrEqual(SIGNALS);
    expect(existsSync(ackOf(inbox, 10))).toBe(true);

    for (const i of [1_999, 0, 1_234]) {
      const read = await ackCountingReads(root, inbox, message(i).id);
      // The signal the index names, checked to carry the id: no other signal of the inbox.
      expect(read).toEqual([join(inbox, signalFileName(message(i)))]);
      expect(existsSync(ackOf(inbox, i))).toBe(true);
    }
  });

  it('finds a signal written after the index, reading only the files the index does not have', async () => {
    const { root, inbox } = await inboxWrittenByAnotherTool(200);
    await acknowledgeSignal(openFederation(root), 'docs', message(0).id, { durable: false });
    for (const i of [200, 201]) writeFileSync(join(inbox, signalFileName(message(i))), toJsonText(message(i)));

    const read = await ackCountingReads(root, inbox, message(201).id);
    // The two new files, indexed, and the one asked for, checked to carry the id.
    expect([...new Set(read)].sort()).toEqual([200, 201].map((i) => join(inbox, signalFileName(message(i)))).sort());
    expect(read).toHaveLength(3);
    expect(existsSync(ackOf(inbox, 201))).toBe(true);
  });

  it('never trusts the index: a name it gives is checked, and a wrong, torn or missing index still finds the signal', async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(50);
    await acknowledgeSignal(openFederation(root), 'docs', message(0).id, { durable: false });
    const shards = join(state, 'inbox-ids');
    // Every shard says the same (whichever holds the id asked for): that id is in another signal's file.
    const everyShard = (text: string) => {
      for (const name of readdirSync(shards)) if (name.endsWith('.json')) writeFileSync(join(shards, name), text);
    };
    everyShard(JSON.stringify({ [message(7).id]: [signalFileName(message(8))] }));
    await acknowledgeSignal(openFederation(root), 'docs', message(7).id, { durable: false });
    expect([existsSync(ackOf(inbox, 7)), existsSync(ackOf(inbox, 8))]).toEqual([true, false]);

    // A path out of the inbox is never read.
    everyShard(JSON.stringify({ [message(9).id]: ['../../../../federate.config.json'] }));
    const read = await ackCountingReads(root, inbox, message(9).id);
    expect(read.every((path) => !path.includes('..'))).toBe(true);
    expect(existsSync(ackOf(inbox, 9))).toBe(true);

    everyShard('{"torn');
    writeFileSync(join(shards, 'names'), 'garbage\n');
    await acknowledgeSignal(openFederation(root), 'docs', message(11).id, { durable: false });
    expect(existsSync(ackOf(inbox, 11))).toBe(true);

    await expect(
      acknowledgeSignal(openFederation(root), 'docs', '00000000-0000-4000-8000-999999999999', { durable: false }),
    ).rejects.toMatchObject({ code: 'UNKNOWN_SIGNAL' });
    expect(readdirSync(inbox).filter((name) => name.endsWith('.ack'))).toHaveLength(4);
  });
});
