import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

/**
 * The durable writes of one file send, in order: every fsync (of a file or a directory, sync or through
 * the thread pool) and every link that publishes a file, by path.
 */
const events: string[] = [];
let recording = false;
const openPaths = new Map<number, string>();
/** When set, the flush of a temp file under this folder is held until `releaseHeld` runs (or a safety valve). */
let holdTempIn: string | undefined;
let releaseHeld: (() => void) | undefined;
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const wrapped = {
    ...real,
    openSync: (...args: Parameters<typeof real.openSync>) => {
      const fd = real.openSync(...args);
      openPaths.set(fd, String(args[0]));
      return fd;
    },
    fsyncSync: (fd: number) => {
      if (recording) events.push(`fsync ${openPaths.get(fd)}`);
      return real.fsyncSync(fd);
    },
    fsync: (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
      const path = openPaths.get(fd);
      if (recording) events.push(`fsync ${path}`);
      if (holdTempIn === undefined || path === undefined || dirname(path) !== holdTempIn || !path.endsWith('.tmp'))
        return real.fsync(fd, callback);
      // Held: flushed only once released, and said when it is done.
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        real.fsync(fd, (error) => {
          events.push(`flushed ${path}`);
          callback(error);
        });
      };
      releaseHeld = release;
      // A send that waited for this flush before publishing anything would otherwise never end: released
      // anyway after a while, said, and the test fails on it (the inbox copy's own flush may be slow).
      setTimeout(() => {
        if (!released) events.push('released by the safety valve');
        release();
      }, 20_000).unref();
    },
    linkSync: (from: string, to: string) => {
      real.linkSync(from, to);
      if (recording) events.push(`link ${to}`);
      if (holdTempIn !== undefined && basename(dirname(to)) === 'inbox') setImmediate(() => releaseHeld?.());
    },
  };
  return { ...wrapped, default: wrapped };
});

const { initFederation, onboardTeam, sendSignal } = await import('fed');
const { openFederation } = await import('fed');
const { tempDir } = await import('../helpers/temp-dir.js');

/** `fsync <temp file of dir>`, `fsync <dir>`, `link <file in dir>`: which folder, and what was done there. */
function shape(event: string, folders: Record<string, string>): string {
  const [op, path] = event.split(' ') as [string, string];
  const folder = (dir: string) => Object.entries(folders).find(([, at]) => at === dir)?.[0] ?? dir;
  if (op === 'link') return `publish in ${folder(dirname(path))}`;
  if (basename(path).endsWith('.tmp')) return `fsync temp file in ${folder(dirname(path))}`;
  return `fsync folder ${folder(path)}`;
}

describe('a durable file send (issue #31, row 6)', () => {
  it('claims its id while it publishes the inbox copy, then the outbox copy, each durable first; all three files are flushed together', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    await sendSignal(openFederation(root), { to: 'docs', type: 'report', subject: 'warm up' });
    const fed = openFederation(root);
    const folders = {
      delivery: `${root}/.fed/delivery`,
      inbox: `${root}/.fed/teams/docs/.fed/signals/inbox`,
      outbox: `${root}/.fed/signals/outbox`,
    };

    events.length = 0;
    recording = true;
    await sendSignal(fed, { to: 'docs', type: 'directive', subject: 'Write the doc' });
    recording = false;

    const writes = events.map((event) => shape(event, folders));
    // Three files, each published once complete and durable: six fsyncs, as many as before.
    expect(writes.filter((w) => w.startsWith('fsync'))).toHaveLength(6);
    // The claim and both copies' temp files are flushed before any is published: one wait for the disk, not three.
    expect(writes.slice(0, 3).sort()).toEqual([
      'fsync temp file in delivery',
      'fsync temp file in inbox',
      'fsync temp file in outbox',
    ]);
    // The claim goes on beside the copies (the send returns once it is durable too), each file in its order.
    expect(writes.filter((w) => w.endsWith('delivery'))).toEqual([
      'fsync temp file in delivery',
      'publish in delivery',
      'fsync folder delivery',
    ]);
    expect(writes.filter((w) => !w.endsWith('delivery')).slice(2)).toEqual([
      'publish in inbox',
      'fsync folder inbox',
      'publish in outbox',
      'fsync folder outbox',
    ]);
  });

  it("publishes the inbox copy once its own file is flushed, while the outbox copy's file still flushes", async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    const outbox = `${root}/.fed/signals/outbox`;
    events.length = 0;
    holdTempIn = outbox;
    recording = true;
    try {
      await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Write the doc' });
    } finally {
      recording = false;
      holdTempIn = undefined;
      releaseHeld = undefined;
    }
    const inboxPublished = events.findIndex((event) =>
      event.startsWith(`link ${root}/.fed/teams/docs/.fed/signals/inbox/`),
    );
    const outboxFlushed = events.findIndex((event) => event.startsWith(`flushed ${outbox}/`));
    const outboxPublished = events.findIndex((event) => event.startsWith(`link ${outbox}/`));
    expect(events).not.toContain('released by the safety valve');
    expect(inboxPublished).toBeGreaterThan(-1);
    expect(inboxPublished).toBeLessThan(outboxFlushed);
    // The outbox copy itself is still published only once its file is flushed.
    expect(outboxFlushed).toBeLessThan(outboxPublished);
  });

  it("a team's send refreshes its lastActive with no fsync: a refresh is best effort", async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    // Two minutes on: the refresh is due (at most one a minute).
    const fed = openFederation(root, { now: () => new Date(Date.now() + 120_000) });
    events.length = 0;
    recording = true;
    await sendSignal(fed, { from: 'docs', to: 'meta', type: 'report', subject: 'Done' });
    recording = false;
    expect(readFileSync(join(root, '.fed', 'team-activity.jsonl'), 'utf8')).toContain('"team":"docs"');
    expect(events.filter((event) => event.includes('team-activity'))).toEqual([]);
    // The signal itself is as durable as ever: its copies flushed, each with its folder.
    expect(events).toContain(`fsync ${root}/.fed/signals/inbox`);
    expect(events).toContain(`fsync ${root}/.fed/teams/docs/.fed/signals/outbox`);
  });
});
