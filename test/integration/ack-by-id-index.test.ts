import { describe, expect, it, vi } from 'vitest';

// Every node:fs call, by name and first argument (test/helpers/fs-calls.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../helpers/fs-calls.js')).countingFs(await importOriginal()),
);

const {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} = await import('node:fs');
const { execFileSync } = await import('node:child_process');
const { basename, dirname, join } = await import('node:path');
const { acknowledgeSignal, applyLifecycleInputs } = await import('fed');
const { openFederation } = await import('fed');
const { isSignalFileName, signalFileName } = await import('fed/testing');
const { toJsonText } = await import('fed/testing');
const { encodeInboxIdPack, INBOX_ID_PACK_FILE, INBOX_ID_SHARDS, readInboxIdPackHeader } = await import('fed/testing');
const { counted } = await import('../helpers/fs-calls.js');
const { tempDir } = await import('../helpers/temp-dir.js');
const { foreignMessage: message, inboxWrittenByAnotherTool } = await import('../helpers/foreign-inbox.js');

const SIGNALS = 2_000;

/** Acknowledge `id` by id as `fed signal ack <id>` does; the signal files of the inbox it opened (not acks, not temp files). */
async function ackCountingReads(root: string, inbox: string, id: string): Promise<string[]> {
  const { calls } = await counted(() => acknowledgeSignal(openFederation(root), 'docs', id, { durable: false }));
  return calls
    .filter((c) => c.op === 'openSync' && dirname(c.path) === inbox && isSignalFileName(basename(c.path)))
    .map((c) => c.path);
}

/** The generation of the pack in `folder`: what the claim beside it names, so a pack planted with it is used. */
function generationIn(folder: string): string {
  const pack = readFileSync(join(folder, INBOX_ID_PACK_FILE));
  return readInboxIdPackHeader(pack, pack.length)!.generation;
}

/** A pack of `folder`'s generation whose every shard is `text`: whichever shard an id falls in says the same. */
const everyShardSays = (folder: string, text: string) =>
  encodeInboxIdPack(
    generationIn(folder),
    Array.from({ length: INBOX_ID_SHARDS }, () => text),
  );
/** A shard's text: ids each followed by a name, as a flat JSON array. */
const pairs = (...values: unknown[]) => JSON.stringify(values);

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

  it('lists the inbox no more while the index covers it: its own acks move the claim', async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(500);
    await acknowledgeSignal(openFederation(root), 'docs', message(0).id, { durable: false });
    for (const i of [499, 7, 250]) {
      const { calls } = await counted(() =>
        acknowledgeSignal(openFederation(root), 'docs', message(i).id, { durable: false }),
      );
      expect(calls.filter((c) => c.op === 'readdirSync' && c.path === inbox)).toEqual([]);
      // One shard of the pack and the claim, never the list of names.
      expect(calls.filter((c) => c.path === join(state, 'inbox-ids', 'names'))).toEqual([]);
      expect(existsSync(ackOf(inbox, i))).toBe(true);
    }
  });

  it('drops the claim before it rewrites the pack or the names, and writes it last', async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(100);
    const folder = join(state, 'inbox-ids');
    await acknowledgeSignal(openFederation(root), 'docs', message(0).id, { durable: false });
    writeFileSync(join(inbox, signalFileName(message(100))), toJsonText(message(100)));
    const { calls } = await counted(() =>
      acknowledgeSignal(openFederation(root), 'docs', message(100).id, { durable: false }),
    );
    // What each write of the folder put in place (a temp file renamed to its name), in order.
    const written = calls
      .filter((c) => (c.op === 'renameSync' || c.op === 'unlinkSync') && dirname(c.path) === folder)
      .map(
        (c) =>
          `${c.op === 'unlinkSync' ? '-' : '+'}${basename(c.path).replace(/^\.(.+)\.\d+\.[0-9a-f]{12}\.tmp$/, '$1')}`,
      )
      // A temp file removed after its rename (already gone) is no write.
      .filter((write) => !write.startsWith('-.'));
    // The claim made after the names (then moved past the ack's own file in place: no rename).
    expect(written).toEqual(['-covers.json', `+${INBOX_ID_PACK_FILE}`, '+names', '+covers.json']);

    // A pack that cannot be written (a folder planted there) leaves no claim: the next ack lists the inbox.
    rmSync(join(folder, INBOX_ID_PACK_FILE));
    mkdirSync(join(folder, INBOX_ID_PACK_FILE));
    writeFileSync(join(inbox, signalFileName(message(101))), toJsonText(message(101)));
    await acknowledgeSignal(openFederation(root), 'docs', message(101).id, { durable: false });
    expect(existsSync(ackOf(inbox, 101))).toBe(true);
    expect(existsSync(join(folder, 'covers.json'))).toBe(false);
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
    const everyShard = (text: string) => writeFileSync(join(shards, INBOX_ID_PACK_FILE), everyShardSays(shards, text));
    everyShard(pairs(message(7).id, signalFileName(message(8))));
    await acknowledgeSignal(openFederation(root), 'docs', message(7).id, { durable: false });
    expect([existsSync(ackOf(inbox, 7)), existsSync(ackOf(inbox, 8))]).toEqual([true, false]);

    // A path out of the inbox is never read.
    everyShard(pairs(message(9).id, '../../../../federate.config.json'));
    const read = await ackCountingReads(root, inbox, message(9).id);
    expect(read.every((path) => !path.includes('..'))).toBe(true);
    expect(existsSync(ackOf(inbox, 9))).toBe(true);

    everyShard('{"torn');
    writeFileSync(join(shards, 'names'), 'garbage\n');
    await acknowledgeSignal(openFederation(root), 'docs', message(11).id, { durable: false });
    expect(existsSync(ackOf(inbox, 11))).toBe(true);

    // A pack cut short (in its header, in its shards) or no pack at all: a miss, never a read past its end,
    // and the index rebuilt.
    for (const [k, cut] of [5_000, 9_000, 0].entries()) {
      const pack = everyShardSays(shards, '[]');
      writeFileSync(join(shards, INBOX_ID_PACK_FILE), cut > 0 ? pack.subarray(0, cut) : 'garbage');
      await acknowledgeSignal(openFederation(root), 'docs', message(12 + k).id, { durable: false });
      expect(existsSync(ackOf(inbox, 12 + k))).toBe(true);
      const rebuilt = readFileSync(join(shards, INBOX_ID_PACK_FILE));
      expect(readInboxIdPackHeader(rebuilt, rebuilt.length)).toBeDefined();
    }

    await expect(
      acknowledgeSignal(openFederation(root), 'docs', '00000000-0000-4000-8000-999999999999', { durable: false }),
    ).rejects.toMatchObject({ code: 'UNKNOWN_SIGNAL' });
    expect(readdirSync(inbox).filter((name) => name.endsWith('.ack'))).toHaveLength(7);
  });

  it("uses the id's own pairs of a shard whatever the others hold, and reads the inbox when its pair is broken", async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(50);
    await acknowledgeSignal(openFederation(root), 'docs', message(0).id, { durable: false });
    const shards = join(state, 'inbox-ids');
    const everyShard = (text: string) => writeFileSync(join(shards, INBOX_ID_PACK_FILE), everyShardSays(shards, text));
    // Another id's pair names no file: only this id's is read, so its signal is the one file read.
    everyShard(pairs(message(3).id, 42, message(4).id, signalFileName(message(4)), { a: 1 }));
    expect(await ackCountingReads(root, inbox, message(4).id)).toEqual([join(inbox, signalFileName(message(4)))]);
    expect(existsSync(ackOf(inbox, 4))).toBe(true);

    // This id's pair is broken (or the shard no array): a miss, so the inbox is read (every signal file),
    // and the signal still found.
    for (const shard of [
      pairs(message(5).id, 42),
      pairs(message(5).id, [signalFileName(message(5))]),
      pairs(message(5).id),
      JSON.stringify({ [message(5).id]: [signalFileName(message(5))] }),
    ]) {
      everyShard(shard);
      const read = await ackCountingReads(root, inbox, message(5).id);
      expect(read.length).toBeGreaterThanOrEqual(49);
    }
    expect(existsSync(ackOf(inbox, 5))).toBe(true);
  });

  it('an index of an older format (a file per shard, no pack) still finds the signal, and its first rebuild removes those shards', async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(50);
    await acknowledgeSignal(openFederation(root), 'docs', message(0).id, { durable: false });
    const shards = join(state, 'inbox-ids');
    // The index as fed kept it before: every id in a shard file of its own (256 two-digit ones, then 1 024
    // three-digit ones; each holds them all here, so any id's shard knows it), the claim still covering the inbox.
    const all = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [message(i).id, [signalFileName(message(i))]]));
    rmSync(join(shards, INBOX_ID_PACK_FILE));
    for (let i = 0; i < 1024; i++) {
      writeFileSync(join(shards, `${i.toString(16).padStart(3, '0')}.json`), JSON.stringify(all));
      if (i < 256) writeFileSync(join(shards, `${i.toString(16).padStart(2, '0')}.json`), JSON.stringify(all));
    }

    await acknowledgeSignal(openFederation(root), 'docs', message(7).id, { durable: false });
    expect(existsSync(ackOf(inbox, 7))).toBe(true);
    expect(readdirSync(shards).sort()).toEqual(['covers.json', INBOX_ID_PACK_FILE, 'names']);
    // Rebuilt: a later ack reads the one signal again.
    expect(await ackCountingReads(root, inbox, message(9).id)).toEqual([join(inbox, signalFileName(message(9)))]);
  });

  it('acknowledges every copy of an id: two there when the index is built, a second written after it knew the id', async () => {
    const { root, inbox } = await inboxWrittenByAnotherTool(20);
    const twin = join(inbox, '2026-02-01T000000Z-report-twin.json');
    writeFileSync(twin, toJsonText(message(5)));
    await acknowledgeSignal(openFederation(root), 'docs', message(5).id, { durable: false });
    expect([existsSync(ackOf(inbox, 5)), existsSync(`${twin}.ack`)]).toEqual([true, true]);

    await acknowledgeSignal(openFederation(root), 'docs', message(3).id, { durable: false });
    const copy = join(inbox, '2026-02-01T000000Z-report-copy.json');
    writeFileSync(copy, toJsonText(message(3)));

    await acknowledgeSignal(openFederation(root), 'docs', message(3).id, { durable: false });
    expect(existsSync(`${copy}.ack`)).toBe(true);
  });

  it('keeps the known names to the inbox: no growth on each lookup, names gone from the inbox dropped', async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(30);
    const names = join(state, 'inbox-ids', 'names');
    await acknowledgeSignal(openFederation(root), 'docs', message(0).id, { durable: false });
    const size = lstatSync(names).size;
    for (const i of [1, 2, 3]) await acknowledgeSignal(openFederation(root), 'docs', message(i).id, { durable: false });
    expect(lstatSync(names).size).toBe(size);

    unlinkSync(join(inbox, signalFileName(message(29))));
    await acknowledgeSignal(openFederation(root), 'docs', message(4).id, { durable: false });
    const known = (JSON.parse(readFileSync(names, 'utf8')) as { names: string[] }).names;
    expect(known).toHaveLength(29);
    expect(known).not.toContain(signalFileName(message(29)));
    // The update copied the shards it did not touch as they were: a later ack reads its one signal.
    expect(await ackCountingReads(root, inbox, message(5).id)).toEqual([join(inbox, signalFileName(message(5)))]);
  });

  it('never adds to a shard that is not what fed writes: the lookup reads the inbox, and every copy is acknowledged', async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(20);
    const folder = join(state, 'inbox-ids');
    await acknowledgeSignal(openFederation(root), 'docs', message(0).id, { durable: false });
    // Every shard garbage, in a pack of the right generation; then a second copy of message 5 dropped in.
    writeFileSync(join(folder, INBOX_ID_PACK_FILE), everyShardSays(folder, 'garbage'));
    const twin = join(inbox, '2026-02-01T000000Z-report-twin.json');
    writeFileSync(twin, toJsonText(message(5)));

    // The update would have written the twin alone into message 5's shard, and a claim over it.
    const first = await ackCountingReads(root, inbox, message(5).id);
    expect(first.length).toBeGreaterThanOrEqual(20);
    expect([existsSync(ackOf(inbox, 5)), existsSync(`${twin}.ack`)]).toEqual([true, true]);
    expect(await ackCountingReads(root, inbox, message(6).id)).toEqual([join(inbox, signalFileName(message(6)))]);
  });

  it('claims no inbox while a signal file may still be written in place: its id is found once it is finished', async () => {
    const { root, inbox } = await inboxWrittenByAnotherTool(20);
    await acknowledgeSignal(openFederation(root), 'docs', message(0).id, { durable: false });
    // Another tool makes a second copy of message 5's id, and an old file that never became a signal.
    const twin = join(inbox, '2026-02-01T000000Z-report-twin.json');
    writeFileSync(twin, '');
    const stale = join(inbox, '2026-02-01T000000Z-report-stale.json');
    writeFileSync(stale, '{"cut');
    utimesSync(stale, new Date(Date.UTC(2026, 0, 1)), new Date(Date.UTC(2026, 0, 1)));
    await acknowledgeSignal(openFederation(root), 'docs', message(3).id, { durable: false });
    // It finishes the twin in place: no name of the folder changes.
    writeFileSync(twin, toJsonText(message(5)));

    await acknowledgeSignal(openFederation(root), 'docs', message(5).id, { durable: false });
    expect([existsSync(ackOf(inbox, 5)), existsSync(`${twin}.ack`)]).toEqual([true, true]);
    // The old invalid file claims nothing back: with the twin read, the index covers the inbox again.
    expect(await ackCountingReads(root, inbox, message(6).id)).toEqual([join(inbox, signalFileName(message(6)))]);
  });

  it('keeps the pack to about what the names in the inbox need, however many came and went', async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(30);
    const packFile = join(state, 'inbox-ids', INBOX_ID_PACK_FILE);
    await acknowledgeSignal(openFederation(root), 'docs', message(0).id, { durable: false });
    const built = lstatSync(packFile).size;
    // Each round another tool archives a signal and drops a new one, which is acknowledged by id.
    for (let i = 30; i < 130; i++) {
      unlinkSync(join(inbox, signalFileName(message(i - 29))));
      writeFileSync(join(inbox, signalFileName(message(i))), toJsonText(message(i)));
      await acknowledgeSignal(openFederation(root), 'docs', message(i).id, { durable: false });
      expect(lstatSync(packFile).size).toBeLessThan(3 * built);
    }
    // Of the 130 signals indexed, the 30 still there: their pairs, and at most as many again gone.
    const pack = readFileSync(packFile);
    const header = readInboxIdPackHeader(pack, pack.length)!;
    let pairs = 0;
    for (let shard = 0; shard < INBOX_ID_SHARDS; shard++) {
      const { start, length } = header.range(shard)!;
      if (length > 0) pairs += (JSON.parse(pack.toString('utf8', start, start + length)) as string[]).length / 2;
    }
    expect(pairs).toBeGreaterThanOrEqual(30);
    expect(pairs).toBeLessThan(3 * 30);
  });

  it("never takes one writer's pack with another's names and claim: a twin indexed by one is still acknowledged", async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(20);
    const folder = join(state, 'inbox-ids');
    const packFile = join(folder, INBOX_ID_PACK_FILE);
    await acknowledgeSignal(openFederation(root), 'docs', message(0).id, { durable: false });
    const older = readFileSync(packFile);
    // One ack indexes a second copy of message 7 (new pack, names and claim), then another process's
    // pack, updated from the older one at the same time, lands after it: the older pack, without the twin.
    const twin = join(inbox, '2026-02-01T000000Z-report-twin.json');
    writeFileSync(twin, toJsonText(message(7)));
    await acknowledgeSignal(openFederation(root), 'docs', message(3).id, { durable: false });
    writeFileSync(packFile, older);

    await acknowledgeSignal(openFederation(root), 'docs', message(7).id, { durable: false });
    expect([existsSync(ackOf(inbox, 7)), existsSync(`${twin}.ack`)]).toEqual([true, true]);
  });
});

describe('a signal named by its file', () => {
  it(`fed signal ack <file> reads that file alone in an inbox of ${SIGNALS}, and the apply looks up no other once another process wrote`, async () => {
    const { root, inbox } = await inboxWrittenByAnotherTool(SIGNALS);
    const named = (i: number) => signalFileName(message(i));
    const signalReads = (calls: readonly { op: string; path: string }[]) =>
      calls.filter((c) => c.op === 'openSync' && dirname(c.path) === inbox && isSignalFileName(basename(c.path)));

    const { calls } = await counted(() =>
      acknowledgeSignal(openFederation(root), 'docs', named(42), { durable: false }),
    );
    expect(signalReads(calls).map((c) => c.path)).toEqual([join(inbox, named(42))]);
    expect(calls.filter((c) => c.op === 'readdirSync' && c.path === inbox)).toEqual([]);
    expect(existsSync(ackOf(inbox, 42))).toBe(true);

    // Read against a version another process has written since: each signal given is looked up again, by
    // its file — the one file, not the inbox.
    const fed = openFederation(root);
    const team = (await fed.backend.registry.read()).teams[0]!;
    const readAgainst = await fed.backend.lifecycles.version(team);
    await applyLifecycleInputs(openFederation(root), team, [{ source: 'signal', signal: message(1) }], {
      durable: false,
    });
    const lookedUp = await counted(() =>
      applyLifecycleInputs(fed, team, [{ source: 'signal', signal: message(7), file: named(7) }], {
        durable: false,
        inboxReadAgainst: readAgainst,
      }),
    );
    expect(signalReads(lookedUp.calls).map((c) => c.path)).toEqual([join(inbox, named(7))]);
    // Found there unacknowledged: taken now (a report before any mission is recorded as ignored), not a duplicate.
    expect(lookedUp.value.steps.map((step) => step.outcome)).toEqual(['ignored']);
  });

  it('a name the reader never takes for a signal, or a dangling link, is as the inbox read says: never applied or acknowledged', async () => {
    const { root, inbox } = await inboxWrittenByAnotherTool(3);
    writeFileSync(join(inbox, '.hidden.json'), toJsonText(message(100)));
    writeFileSync(join(inbox, 'notes.txt'), toJsonText(message(101)));
    writeFileSync(join(inbox, 'gone.json.ack'), toJsonText(message(102)));
    symlinkSync(join(inbox, 'nowhere'), join(inbox, 'dangling.json'));
    const fed = openFederation(root);
    const team = (await fed.backend.registry.read()).teams[0]!;
    const box = fed.backend.signals.inbox({ id: 'docs', entry: team });
    const seen = async (name: string) => {
      const found = await box.lookup(name);
      return found === undefined ? 'nothing' : 'signal' in found ? 'signal' : 'invalid';
    };
    expect({
      hidden: await seen('.hidden.json'),
      text: await seen('notes.txt'),
      ack: await seen('gone.json.ack'),
      link: await seen('dangling.json'),
    }).toEqual({ hidden: 'nothing', text: 'nothing', ack: 'invalid', link: 'invalid' });
    for (const name of ['gone.json.ack', 'dangling.json'])
      await expect(acknowledgeSignal(fed, 'docs', name, { durable: false })).rejects.toMatchObject({
        code: 'INVALID_SIGNAL',
      });
    expect(existsSync(join(inbox, 'gone.json.ack.ack'))).toBe(false);
  });
});

/** A file outside the workspace an agent would like fed to write to (its ~/.bashrc, the registry). */
function outsideFile(): { path: string; bytes: Buffer } {
  const path = join(tempDir(), 'bashrc');
  writeFileSync(path, 'export PATH=/usr/bin\n');
  return { path, bytes: readFileSync(path) };
}

describe('the inbox id index in a folder a hostile agent writes', () => {
  it('never writes through a link planted at names; a hostile file name (newline, $(...)) stays one name', async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(10);
    const folder = join(state, 'inbox-ids');
    mkdirSync(folder, { recursive: true });
    const outside = outsideFile();
    symlinkSync(outside.path, join(folder, 'names'));
    const hostile = 'evil\n$(touch pwned)\n2026-01-01T000000Z-report-x.json';
    writeFileSync(join(inbox, hostile), toJsonText(message(50)));

    await acknowledgeSignal(openFederation(root), 'docs', message(50).id, { durable: false });
    expect(existsSync(join(inbox, `${hostile}.ack`))).toBe(true);
    expect(readFileSync(outside.path)).toEqual(outside.bytes);
    expect(lstatSync(join(folder, 'names')).isFile()).toBe(true);
    // The name is kept whole: neither it nor a line of it is a name of its own.
    const known = (JSON.parse(readFileSync(join(folder, 'names'), 'utf8')) as { names: string[] }).names;
    expect(known).toContain(hostile);
    expect(known).not.toContain('2026-01-01T000000Z-report-x.json');

    // Planted again after the index was built: still replaced, not written through.
    await acknowledgeSignal(openFederation(root), 'docs', message(1).id, { durable: false });
    rmSync(join(folder, 'names'));
    symlinkSync(outside.path, join(folder, 'names'));
    writeFileSync(join(inbox, signalFileName(message(60))), toJsonText(message(60)));
    await acknowledgeSignal(openFederation(root), 'docs', message(60).id, { durable: false });
    expect(existsSync(ackOf(inbox, 60))).toBe(true);
    expect(readFileSync(outside.path)).toEqual(outside.bytes);
  });

  it('never writes through a hard link planted at the claim: it is replaced instead', async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(10);
    const claim = join(state, 'inbox-ids', 'covers.json');
    await acknowledgeSignal(openFederation(root), 'docs', message(0).id, { durable: false });
    const outside = join(dirname(inbox), 'outside.txt');
    writeFileSync(outside, readFileSync(claim));
    const bytes = readFileSync(outside);
    rmSync(claim);
    linkSync(outside, claim);

    for (const i of [1, 2]) await acknowledgeSignal(openFederation(root), 'docs', message(i).id, { durable: false });
    expect(existsSync(ackOf(inbox, 2))).toBe(true);
    expect(readFileSync(outside)).toEqual(bytes);
    expect(lstatSync(claim).nlink).toBe(1);
  });

  it('finishes with a FIFO at names (never opened to block), and replaces it', async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(10);
    const folder = join(state, 'inbox-ids');
    mkdirSync(folder, { recursive: true });
    execFileSync('mkfifo', [join(folder, 'names')]);

    await acknowledgeSignal(openFederation(root), 'docs', message(4).id, { durable: false });
    expect(existsSync(ackOf(inbox, 4))).toBe(true);
    expect(lstatSync(join(folder, 'names')).isFile()).toBe(true);
  });

  it('falls back to reading the inbox with a folder at names or at the pack', async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(10);
    const folder = join(state, 'inbox-ids');
    mkdirSync(join(folder, 'names'), { recursive: true });
    mkdirSync(join(folder, INBOX_ID_PACK_FILE));

    for (const i of [4, 5]) {
      await acknowledgeSignal(openFederation(root), 'docs', message(i).id, { durable: false });
      expect(existsSync(ackOf(inbox, i))).toBe(true);
    }
    expect(lstatSync(join(folder, 'names')).isDirectory()).toBe(true);
  });

  it('never reads or writes through a link planted at the pack', async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(10);
    const folder = join(state, 'inbox-ids');
    await acknowledgeSignal(openFederation(root), 'docs', message(0).id, { durable: false });
    const outside = outsideFile();
    // The link's target says where messages 5 and 70 are: a name fed would open only through the link.
    const lure = join(inbox, 'lure.json');
    writeFileSync(outside.path, everyShardSays(folder, pairs(message(5).id, 'lure.json', message(70).id, 'lure.json')));
    const bytes = readFileSync(outside.path);
    rmSync(join(folder, INBOX_ID_PACK_FILE));
    symlinkSync(outside.path, join(folder, INBOX_ID_PACK_FILE));
    writeFileSync(join(inbox, signalFileName(message(70))), toJsonText(message(70)));

    for (const i of [70, 5]) {
      expect(await ackCountingReads(root, inbox, message(i).id)).not.toContain(lure);
      expect(existsSync(ackOf(inbox, i))).toBe(true);
    }
    expect(readFileSync(outside.path)).toEqual(bytes);
  });
});
