import { createHook } from 'node:async_hooks';
import { describe, expect, it, vi } from 'vitest';

/**
 * What `fed signal list` (listSignals) does per signal of an inbox, counted at two sizes so that any work
 * added per signal shows: each signal and ack file is opened once and read through that descriptor
 * (open, fstat, read, close: what a raw read does), the inbox is listed once, nothing else is touched per
 * signal; each file is parsed once and judged without zod; the listed message is the object its parse
 * made (a copy of each one cost more than the parse); and no promise is made per signal (an await per
 * signal cost more than deriving its state). Issue #31, the `apply-path` bench's list row.
 */
// Every node:fs call, by name and first argument (test/helpers/fs-calls.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../helpers/fs-calls.js')).countingFs(await importOriginal()),
);

const { writeFileSync } = await import('node:fs');
const { join } = await import('node:path');
const { initFederation, listSignals, onboardTeam } = await import('fed');
const { openFederation } = await import('fed');
const { workspacePaths } = await import('fed/testing');
const { toJsonText } = await import('fed/testing');
const { signalAckSchema, signalMessageSchema } = await import('fed');
const { ackFileName, signalFileName } = await import('fed/testing');
const { counted, onPaths } = await import('../helpers/fs-calls.js');
const { tempDir } = await import('../helpers/temp-dir.js');

/** An inbox of `size` signals, each with its ack, written as fed writes them (the setup is not counted). */
async function inboxOf(size: number): Promise<{ root: string; inbox: string }> {
  const root = tempDir();
  initFederation(root, {}, {});
  const entry = await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
  const { inbox } = workspacePaths(entry.location);
  for (let i = 0; i < size; i++) {
    const message = {
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      timestamp: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
      from: 'meta',
      to: 'docs',
      type: 'question' as const,
      subject: `question ${i}`,
      body: `body of question ${i}`,
      protocol: 'file-signal-v1' as const,
    };
    const name = signalFileName(message);
    writeFileSync(join(inbox, name), toJsonText(message));
    writeFileSync(
      join(inbox, ackFileName(name)),
      toJsonText({ acknowledged: true, acknowledged_at: message.timestamp }),
    );
  }
  return { root, inbox };
}

interface Work {
  /** Calls on the inbox's paths, by name. */
  inboxPaths: Record<string, number>;
  /** Calls on any other path, in order (the same at any size). */
  otherPaths: string[];
  /** Calls on open descriptors, by name (reads of what was opened). */
  descriptors: Record<string, number>;
  jsonParses: number;
  zodParses: number;
  promises: number;
  /** Listed signals whose message is not an object a JSON.parse of this listing returned. */
  copied: number;
}

async function listWork(size: number): Promise<Work> {
  const { root, inbox } = await inboxOf(size);
  // Once before, so that what loads on first use (config formats, schemas) is not counted.
  await listSignals(openFederation(root), { team: 'docs' });
  const parse = vi.spyOn(JSON, 'parse');
  const zod = [vi.spyOn(signalMessageSchema, 'safeParse'), vi.spyOn(signalAckSchema, 'safeParse')];
  let promises = 0;
  const hook = createHook({
    init: (_id, type) => {
      if (type === 'PROMISE') promises++;
    },
  }).enable();
  try {
    const { value: listing, calls } = await counted(() => listSignals(openFederation(root), { team: 'docs' }));
    hook.disable();
    expect(listing.signals).toHaveLength(size);
    expect(listing.signals.every((s) => s.message.acknowledged)).toBe(true);
    expect(listing.invalid).toEqual([]);
    const parsed = new Set(parse.mock.results.map((result) => result.value as unknown));
    const tally = (names: string[]) => {
      const out: Record<string, number> = {};
      for (const name of names) out[name] = (out[name] ?? 0) + 1;
      return out;
    };
    const paths = onPaths(calls);
    const inInbox = (path: string) => path === inbox || path.startsWith(`${inbox}/`);
    return {
      inboxPaths: tally(paths.filter((c) => inInbox(c.path)).map((c) => c.op)),
      otherPaths: paths.filter((c) => !inInbox(c.path)).map((c) => `${c.op} ${c.path.replace(root, '<root>')}`),
      descriptors: tally(calls.filter((c) => !paths.includes(c)).map((c) => c.op)),
      jsonParses: parse.mock.calls.length,
      zodParses: zod.reduce((sum, spy) => sum + spy.mock.calls.length, 0),
      promises,
      copied: listing.signals.filter((s) => !parsed.has(s.message)).length,
    };
  } finally {
    hook.disable();
    parse.mockRestore();
    for (const spy of zod) spy.mockRestore();
  }
}

describe('fed signal list of a large inbox', () => {
  it('opens and reads each file once, parses it once without zod, copies no message and awaits nothing per signal', async () => {
    const [small, large] = [await listWork(40), await listWork(160)];
    for (const [work, size] of [
      [small, 40],
      [large, 160],
    ] as const) {
      const files = 2 * size;
      // The inbox checked (realpath) and stat-ed once, listed once; each file opened once.
      expect(work.inboxPaths).toEqual({ realpathSync: 1, statSync: 1, readdirSync: 1, openSync: files });
      expect(work.zodParses).toBe(0);
      expect(work.copied).toBe(0);
    }
    // Nothing else per signal: the same calls elsewhere, and the parses and promises of the listing itself.
    expect(large.otherPaths).toEqual(small.otherPaths);
    // Each file added is read through its descriptor with one fstat, one read and one close.
    const added = 2 * (160 - 40);
    expect(Object.keys(large.descriptors).sort()).toEqual(Object.keys(small.descriptors).sort());
    for (const op of Object.keys(large.descriptors))
      expect(large.descriptors[op]! - small.descriptors[op]!, op).toBe(
        ['fstatSync', 'readSync', 'closeSync'].includes(op) ? added : 0,
      );
    expect(large.jsonParses - small.jsonParses).toBe(added);
    // A promise per signal would add 120 here; a few may come from the test runner meanwhile.
    expect(large.promises - small.promises).toBeLessThan(20);
  });
});
