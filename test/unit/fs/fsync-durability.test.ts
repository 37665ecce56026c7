import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * What each durable write fsyncs, by path: the file before it is published and the directory that gained
 * the name after (docs/design/invariants.md #1–3) — and nothing when the caller turned durability off.
 * A crash test cannot see a missing fsync (the page cache survives a killed process); only the calls can.
 */
vi.mock('node:fs', async (importOriginal) => (await import('./fs-faults.js')).faultyFs(await importOriginal()));

const { mkdirSync, writeFileSync } = await import('node:fs');
const { join } = await import('node:path');
const { recordFsyncs, resetFaults } = await import('./fs-faults.js');
const {
  createFileExclusive,
  fsyncDirectory,
  linkFileNoClobber,
  publishFileNoClobber,
  writeFileAtomic,
  writeFileAtomicAsync,
  writeTempFiles,
} = await import('fed/testing');
const { ensureDirectory } = await import('fed/testing');
const { appendJsonLine, appendJournalLines, workspacePaths } = await import('fed/testing');
const { acquireLock, releaseLock } = await import('fed/testing');
const { tempDir } = await import('../../helpers/temp-dir.js');
const { openDescriptorsUnder } = await import('./open-descriptors.js');

afterEach(resetFaults);

/** A temp file fed writes beside `target` (tempPathFor), as fsync names it. */
const TEMP = /\/\.[^/]+\.\d+\.[0-9a-f]{12}\.tmp$/;
const kinds = (synced: string[], dir: string) =>
  synced.map((path) => (path === dir ? 'dir' : TEMP.test(path) ? 'temp' : path));

describe('what a durable write fsyncs', () => {
  it('an atomic replace: the temp file, then the directory; nothing without durability', () => {
    const dir = tempDir();
    const synced = recordFsyncs();
    writeFileAtomic(join(dir, 'state.json'), 'x');
    expect(kinds(synced, dir)).toEqual(['temp', 'dir']);
    synced.length = 0;
    writeFileAtomic(join(dir, 'state.json'), 'y', { durable: false });
    expect(synced).toEqual([]);
  });

  it('an atomic replace waiting on the thread pool (a lifecycle write): the same fsyncs in the same order', async () => {
    const dir = tempDir();
    const synced = recordFsyncs();
    await writeFileAtomicAsync(join(dir, 'state.json'), 'x');
    expect(kinds(synced, dir)).toEqual(['temp', 'dir']);
    synced.length = 0;
    await writeFileAtomicAsync(join(dir, 'state.json'), 'y', { durable: false });
    expect(synced).toEqual([]);
  });

  it('a publish: the temp file, then the directory it was linked into; nothing without durability', () => {
    const dir = tempDir();
    const synced = recordFsyncs();
    publishFileNoClobber(dir, 'signal.json', 'x');
    expect(kinds(synced, dir)).toEqual(['temp', 'dir']);
    synced.length = 0;
    publishFileNoClobber(dir, 'signal.json', 'y', { durable: false });
    expect(synced).toEqual([]);
  });

  it('a further name for a file: the directory that gained it; nothing without durability', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a'), 'x');
    mkdirSync(join(dir, 'archive'));
    const synced = recordFsyncs();
    linkFileNoClobber(join(dir, 'a'), join(dir, 'archive'), 'a');
    expect(synced).toEqual([join(dir, 'archive')]);
    synced.length = 0;
    linkFileNoClobber(join(dir, 'a'), join(dir, 'archive'), 'a', { durable: false });
    expect(synced).toEqual([]);
  });

  it('an exclusive create: the temp file and the directory, the directory only when asked, nothing without durability', () => {
    const dir = tempDir();
    const synced = recordFsyncs();
    createFileExclusive(join(dir, 'a'), 'x');
    expect(kinds(synced, dir)).toEqual(['temp', 'dir']);
    synced.length = 0;
    createFileExclusive(join(dir, 'b'), 'x', { syncDirectory: false });
    expect(kinds(synced, dir)).toEqual(['temp']);
    synced.length = 0;
    createFileExclusive(join(dir, 'c'), 'x', { durable: false });
    expect(synced).toEqual([]);
  });

  it('temp files for a send: each one fsynced when durable, none otherwise', async () => {
    const dir = tempDir();
    const synced = recordFsyncs();
    await Promise.allSettled(writeTempFiles([join(dir, 'a'), join(dir, 'b')], 'x'));
    expect(kinds(synced, dir)).toEqual(['temp', 'temp']);
    synced.length = 0;
    await Promise.allSettled(writeTempFiles([join(dir, 'c')], 'x', { durable: false }));
    expect(synced).toEqual([]);
  });

  it('a directory fsync syncs that directory and closes it again', () => {
    const dir = tempDir();
    const synced = recordFsyncs();
    fsyncDirectory(dir);
    expect(synced).toEqual([dir]);
    expect(openDescriptorsUnder(dir)).toEqual([]);
  });
});

describe('what making a directory fsyncs', () => {
  it('every directory that gained an entry: each new level but the last, and the parent of the first one made', () => {
    const dir = tempDir();
    const synced = recordFsyncs();
    ensureDirectory(join(dir, 'a', 'b', 'c'));
    expect(synced).toEqual([join(dir, 'a', 'b'), join(dir, 'a'), dir]);
  });

  it('one level made: only its parent', () => {
    const dir = tempDir();
    const synced = recordFsyncs();
    ensureDirectory(join(dir, 'a'));
    expect(synced).toEqual([dir]);
  });

  it('nothing when the directory exists, or without durability', () => {
    const dir = tempDir();
    const synced = recordFsyncs();
    ensureDirectory(dir);
    ensureDirectory(join(dir, 'a', 'b'), { durable: false });
    expect(synced).toEqual([]);
  });
});

describe('what an append to a journal fsyncs', () => {
  it('the journal after the line, by default; nothing without durability', () => {
    const dir = tempDir();
    const journal = join(dir, 'runs.jsonl');
    const synced = recordFsyncs();
    appendJsonLine(journal, { n: 1 });
    expect(synced).toEqual([journal]);
    synced.length = 0;
    appendJsonLine(journal, { n: 2 }, { durable: false });
    expect(synced).toEqual([]);
  });

  it("a team's lifecycle journal, on the thread pool: the journal after the lines; nothing without durability", async () => {
    const workspace = tempDir();
    const { journal } = workspacePaths(workspace);
    mkdirSync(join(journal, '..'), { recursive: true });
    const line = (seq: number) => ({ seq, at: new Date().toISOString(), from: 'a', to: 'b', event: 'E' });
    const synced = recordFsyncs();
    expect(await appendJournalLines(workspace, [line(1)] as never)).toBe(1);
    expect(synced).toEqual([journal]);
    synced.length = 0;
    expect(await appendJournalLines(workspace, [line(2)] as never, { durable: false })).toBe(1);
    expect(synced).toEqual([]);
  });

  it('the new folders too, when the journal’s folder is made on the way', () => {
    const dir = tempDir();
    const journal = join(dir, 'logs', 'runs.jsonl');
    const synced = recordFsyncs();
    appendJsonLine(journal, { n: 1 });
    expect(synced).toEqual([dir, journal]);
  });
});

describe('locks', () => {
  it('are created without any fsync: they live only as long as a process', async () => {
    const dir = tempDir();
    const synced = recordFsyncs();
    releaseLock(await acquireLock(join(dir, 'x.lock')));
    expect(synced).toEqual([]);
  });
});
