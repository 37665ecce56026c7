import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';

/** Every openSync, by path: a signal file opened twice is read (and kept) by something beside the consumer. */
const opened = new Map<string, number>();
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const openSync = (...args: Parameters<typeof real.openSync>) => {
    const path = String(args[0]);
    opened.set(path, (opened.get(path) ?? 0) + 1);
    return real.openSync(...args);
  };
  const wrapped = { ...real, openSync };
  return { ...wrapped, default: wrapped };
});

const { initFederation, onboardTeam, runActors, sendSignal } = await import('fed');
const { openFederation } = await import('fed');
const { isSignalFileName } = await import('fed/testing');
const { tempDir } = await import('../helpers/temp-dir.js');

const SIGNALS = 200;

/**
 * What a running `fed actors run` keeps per signal: its wake-up reads nothing, so each signal file is
 * opened once — by the consumer, which keeps nothing of it after its batch. The watch it used before parsed
 * and cached every signal of the inbox beside it (~2.5 KB retained per applied signal, for as long as it
 * ran: 62 → 367 MiB over 50 000 signals); that second reader is what this fails on.
 */
describe('a running fed actors run', () => {
  it(`opens each of ${SIGNALS} signals once: nothing else reads or keeps them`, async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    const stop = new AbortController();
    let applied = 0;
    const running = runActors(openFederation(root), {
      team: 'docs',
      signal: stop.signal,
      durable: false,
      streamSteps: true,
      onResult: (result) => void (applied += result.steps.length),
    });
    opened.clear();
    try {
      const fed = openFederation(root);
      for (let i = 0; i < SIGNALS; i++) {
        await sendSignal(fed, { to: 'docs', type: 'question', subject: `q ${i}` }, { durable: false });
        // A turn of the event loop, as between two senders' writes: the inbox's change events reach the actor.
        if (i % 10 === 0) await nextTurn();
      }
      while (applied < SIGNALS) await new Promise((resolve) => setTimeout(resolve, 10));
      // One rescan too (1 s): it reads the inbox through the consumer as well.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
    } finally {
      stop.abort();
      await running;
    }
    const inboxReads = [...opened].filter(
      ([path]) => path.includes('/signals/inbox/') && isSignalFileName(path.slice(path.lastIndexOf('/') + 1)),
    );
    expect(inboxReads).toHaveLength(SIGNALS);
    expect(inboxReads.filter(([, count]) => count > 1)).toEqual([]);
  }, 60_000);
});
