import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { writeRegistryStatus } from 'fed/testing';
import {
  acknowledgeSignal,
  type InvalidSignalFile,
  openFederation,
  sendSignal,
  type SignalEntry,
  type SignalSubscription,
} from 'fed';
import { type WatchSignalsOptions } from '../../../src/adapters/file/signals/watch-signals.js';
import { watchSignals } from '../../../src/engine/messaging/watch-signals.js';
import { signalFederation } from '../../helpers/signal-federation.js';

const fast = { durable: false };

async function watch(root: string, team: string, options: WatchSignalsOptions = {}): Promise<SignalSubscription> {
  const subscription = await watchSignals(openFederation(root), team, options);
  onTestFinished(() => subscription.close());
  return subscription;
}

/**
 * The next `n` signals (fewer if the subscription ends), without ending the subscription as a `break`
 * out of `for await` would; fails after `timeoutMs`.
 */
async function take(subscription: SignalSubscription, n: number, timeoutMs = 5_000): Promise<SignalEntry[]> {
  const iterator = subscription[Symbol.asyncIterator]();
  const got: SignalEntry[] = [];
  const deadline = Date.now() + timeoutMs;
  while (got.length < n) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no signal within ${timeoutMs} ms (got ${got.length} of ${n})`)),
        deadline - Date.now(),
      );
    });
    const result = await Promise.race([iterator.next(), timeout]).finally(() => clearTimeout(timer));
    if (result.done) break;
    got.push(result.value);
  }
  return got;
}

describe('watching an inbox', () => {
  it('yields a signal through fs.watch, without waiting for the rescan', async () => {
    const fed = await signalFederation(['docs']);
    // The rescan is an hour away and the wait gives up after 30 s: only fs.watch can bring the signal in
    // time. How soon it does is the bench's to say (npm run bench signals), not a unit test's.
    const subscription = await watch(fed.root, 'docs', { rescanMs: 3_600_000 });
    const sent = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'directive', subject: 'Now' }, fast);
    const [got] = await take(subscription, 1, 30_000);
    expect(got?.file).toBe(sent.file);
    expect(got?.message).toEqual({ ...sent.message, acknowledged: false });
  });

  it('finds every signal through the periodic rescan alone when there are no fs.watch events', async () => {
    const fed = await signalFederation(['docs']);
    const subscription = await watch(fed.root, 'docs', { fastPath: false, rescanMs: 30 });
    const sent = [];
    for (let i = 0; i < 5; i++)
      sent.push(await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: `n${i}` }, fast));
    const got = await take(subscription, 5);
    expect(got.map((g) => g.file).sort()).toEqual(sent.map((s) => s.file).sort());
  });

  it('yields each signal once, and a file that leaves the box and comes back counts as new', async () => {
    const fed = await signalFederation(['docs']);
    const subscription = await watch(fed.root, 'docs', { rescanMs: 20 });
    const first = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'once' }, fast);
    expect((await take(subscription, 1))[0]?.file).toBe(first.file);
    await new Promise((r) => setTimeout(r, 100)); // several rescans, no repeat
    const second = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'twice' }, fast);
    expect((await take(subscription, 1))[0]?.file).toBe(second.file);

    const aside = join(fed.team('docs').workspace, first.file);
    renameSync(first.inboxPath, aside);
    await new Promise((r) => setTimeout(r, 100));
    renameSync(aside, first.inboxPath);
    expect((await take(subscription, 1))[0]?.file).toBe(first.file);
  });

  it('ends a for-await loop that breaks, as async iterables do', async () => {
    const fed = await signalFederation(['docs']);
    const subscription = await watch(fed.root, 'docs');
    await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'one' }, fast);
    for await (const _entry of subscription) break;
    expect(subscription.closed).toBe(true);
  });

  it('skips what was already there, or first yields the unacknowledged backlog (or all of it)', async () => {
    const fed = await signalFederation(['docs']);
    // Distinct seconds: signals are yielded in timestamp order, and two sends can share a millisecond.
    const old = await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'report', subject: 'old' },
      { ...fast, now: () => new Date(Date.now() - 2_000) },
    );
    const acked = await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'report', subject: 'acked' },
      { ...fast, now: () => new Date(Date.now() - 1_000) },
    );
    await acknowledgeSignal(openFederation(fed.root), 'docs', acked.message.id, fast);

    const backlog = await watch(fed.root, 'docs', { backlog: 'unacknowledged' });
    const all = await watch(fed.root, 'docs', { backlog: 'all' });
    const fresh = await watch(fed.root, 'docs');
    const next = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'next' }, fast);
    expect((await take(backlog, 2)).map((g) => g.file)).toEqual([old.file, next.file]);
    expect((await take(all, 3)).map((g) => g.file)).toEqual([old.file, acked.file, next.file]);
    expect((await take(fresh, 1)).map((g) => g.file)).toEqual([next.file]);
  });

  it('ends the iteration on close() and on abort, also while waiting', async () => {
    const fed = await signalFederation(['docs']);
    const closed = await watch(fed.root, 'docs');
    setTimeout(() => closed.close(), 30);
    expect(await take(closed, 1)).toEqual([]);
    expect(closed.closed).toBe(true);

    const controller = new AbortController();
    const aborted = await watch(fed.root, 'docs', { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    expect(await take(aborted, 1)).toEqual([]);
    expect(aborted.closed).toBe(true);

    const early = await watch(fed.root, 'docs', { signal: AbortSignal.abort() });
    expect(early.closed).toBe(true);
    expect(await take(early, 1)).toEqual([]);
  });

  it('reports each invalid file once and never yields it, while valid signals keep flowing', async () => {
    const fed = await signalFederation(['docs']);
    const invalid: InvalidSignalFile[] = [];
    const subscription = await watch(fed.root, 'docs', { rescanMs: 20, onInvalid: (file) => invalid.push(file) });
    writeFileSync(join(fed.team('docs').inbox, 'junk.json'), 'junk');
    const sent = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'alert', subject: 'real' }, fast);
    expect((await take(subscription, 1)).map((g) => g.file)).toEqual([sent.file]);
    await new Promise((r) => setTimeout(r, 100));
    expect(invalid.map((i) => i.file)).toEqual(['junk.json']);
  });

  it('creates a missing inbox so it can be watched', async () => {
    const fed = await signalFederation(['docs']);
    rmSync(fed.team('docs').inbox, { recursive: true });
    const subscription = await watch(fed.root, 'docs');
    const sent = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'alert', subject: 'hello' }, fast);
    expect((await take(subscription, 1))[0]?.file).toBe(sent.file);
  });

  it('watches an archived team (reading is history), with its backlog', async () => {
    const fed = await signalFederation(['docs']);
    const sent = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'alert', subject: 'last words' }, fast);
    await writeRegistryStatus(openFederation(fed.root), 'docs', { type: 'ARCHIVE' }, fast);
    expect((await take(await watch(fed.root, 'docs', { backlog: 'all' }), 1))[0]?.file).toBe(sent.file);
  });
});
