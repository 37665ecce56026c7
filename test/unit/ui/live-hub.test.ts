import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLiveHub, type LiveHub, type SseMessage } from '../../../src/apps/ui/live/live-hub.js';
import type { LiveEvent } from 'fed/testing';
import type { FederationChange, FederationChanges } from 'fed';

/** A change feed driven by the test: `emit` is what the backend would tell. */
function fakeChanges() {
  const listeners: Array<(change: FederationChange) => void> = [];
  const onErrors: Array<((error: Error) => void) | undefined> = [];
  let watches = 0;
  let closed = 0;
  const changes: FederationChanges = {
    watch(listener, onError) {
      watches += 1;
      listeners.push(listener);
      onErrors.push(onError);
      return {
        ready: Promise.resolve(),
        close: async () => {
          closed += 1;
        },
      };
    },
  };
  return {
    changes,
    emit: (change: FederationChange) => listeners.forEach((listener) => listener(change)),
    /** The backend's watcher broke for good. */
    fail: (error: Error) => onErrors.forEach((onError) => onError?.(error)),
    get watches() {
      return watches;
    },
    get closed() {
      return closed;
    },
  };
}

const AT = new Date('2026-11-23T20:00:00.000Z');
const registry: FederationChange = { scope: 'registry' };
const inbox = (team: string): FederationChange => ({ scope: 'team', team, what: 'inbox' });

function recorder() {
  const messages: SseMessage[] = [];
  return { messages, send: (message: SseMessage) => void messages.push(message) };
}

const seqs = (messages: SseMessage[]) =>
  messages
    .filter((message) => message.event === 'change')
    .map((message) => (JSON.parse(message.data) as LiveEvent).seq);

describe('the live hub', () => {
  let hub: LiveHub | undefined;
  afterEach(async () => {
    await hub?.close();
    vi.useRealTimers();
  });

  it('numbers changes from 1 and sends each as a change event whose id is its run and seq', () => {
    const feed = fakeChanges();
    hub = createLiveHub(feed.changes, { now: () => AT });
    const client = recorder();
    hub.subscribe(undefined, client.send);
    feed.emit(registry);
    feed.emit(inbox('alpha'));
    expect(client.messages).toEqual([
      { id: `${hub.run}-1`, event: 'change', data: JSON.stringify({ seq: 1, at: AT.toISOString(), change: registry }) },
      {
        id: `${hub.run}-2`,
        event: 'change',
        data: JSON.stringify({ seq: 2, at: AT.toISOString(), change: inbox('alpha') }),
      },
    ]);
  });

  it('keeps one watch however many clients subscribe, and counts them', () => {
    const feed = fakeChanges();
    hub = createLiveHub(feed.changes);
    const clients = Array.from({ length: 20 }, () => recorder());
    const stops = clients.map((client) => hub!.subscribe(undefined, client.send));
    expect(hub.clients).toBe(20);
    feed.emit(registry);
    expect(feed.watches).toBe(1);
    for (const client of clients) expect(seqs(client.messages)).toEqual([1]);
    stops[0]!();
    expect(hub.clients).toBe(19);
    feed.emit(registry);
    expect(seqs(clients[0]!.messages)).toEqual([1]);
    expect(seqs(clients[1]!.messages)).toEqual([1, 2]);
  });

  it('replays what came after Last-Event-ID, then streams', () => {
    const feed = fakeChanges();
    hub = createLiveHub(feed.changes);
    for (let i = 0; i < 5; i++) feed.emit(inbox(`t${i}`));
    const client = recorder();
    hub.subscribe(`${hub.run}-3`, client.send);
    expect(seqs(client.messages)).toEqual([4, 5]);
    feed.emit(registry);
    expect(seqs(client.messages)).toEqual([4, 5, 6]);
    const upToDate = recorder();
    hub.subscribe(`${hub.run}-6`, upToDate.send);
    expect(upToDate.messages).toEqual([]);
  });

  it.each([
    ['unknown (not a number)', () => 'abc'],
    ['from the future', (run: string) => `${run}-99`],
    ['negative', (run: string) => `${run}--1`],
    ['too old', (run: string) => `${run}-1`],
    ['of another run (a server before a restart)', (run: string) => `${run[0] === '0' ? '1' : '0'}${run.slice(1)}-3`],
    ['a bare seq (no run)', () => '3'],
  ])('sends a reset first when the id is %s, carrying the latest seq', (_why, id) => {
    const feed = fakeChanges();
    hub = createLiveHub(feed.changes, { keep: 3 });
    for (let i = 0; i < 6; i++) feed.emit(registry);
    const client = recorder();
    hub.subscribe(id(hub.run), client.send);
    expect(client.messages).toEqual([{ id: `${hub.run}-6`, event: 'reset', data: JSON.stringify({ seq: 6 }) }]);
    feed.emit(registry);
    expect(seqs(client.messages)).toEqual([7]);
  });

  it('replays the oldest kept event when the id is just before it', () => {
    const feed = fakeChanges();
    hub = createLiveHub(feed.changes, { keep: 3 });
    for (let i = 0; i < 6; i++) feed.emit(registry);
    const client = recorder();
    hub.subscribe(`${hub.run}-3`, client.send);
    expect(seqs(client.messages)).toEqual([4, 5, 6]);
  });

  it('sends a ping to every client from one timer, and stops it on close', async () => {
    vi.useFakeTimers();
    const feed = fakeChanges();
    hub = createLiveHub(feed.changes, { heartbeatMs: 1000 });
    expect(vi.getTimerCount()).toBe(1);
    const clients = Array.from({ length: 5 }, () => recorder());
    for (const client of clients) hub.subscribe(undefined, client.send);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(2500);
    for (const client of clients)
      expect(client.messages).toEqual([
        { event: 'ping', data: '' },
        { event: 'ping', data: '' },
      ]);
    await hub.close();
    expect(vi.getTimerCount()).toBe(0);
    expect(feed.closed).toBe(1);
    expect(hub.clients).toBe(0);
  });

  it('drops a client whose send throws, and keeps serving the others', () => {
    const feed = fakeChanges();
    hub = createLiveHub(feed.changes);
    const good = recorder();
    hub.subscribe(undefined, () => {
      throw new Error('stream closed');
    });
    hub.subscribe(undefined, good.send);
    feed.emit(registry);
    expect(hub.clients).toBe(1);
    expect(seqs(good.messages)).toEqual([1]);
  });

  it('tells every client, and every later one, that live updates stopped when the feed breaks', () => {
    const feed = fakeChanges();
    const heard: Error[] = [];
    hub = createLiveHub(feed.changes, { onError: (error) => void heard.push(error) });
    const early = recorder();
    hub.subscribe(undefined, early.send);
    feed.emit(registry);
    feed.fail(new Error('the JetStream connection closed'));
    const stopped = { event: 'stopped', data: JSON.stringify({ message: 'the JetStream connection closed' }) };
    expect(early.messages.at(-1)).toEqual(stopped);
    expect(heard.map((error) => error.message)).toEqual(['the JetStream connection closed']);
    const late = recorder();
    hub.subscribe(`${hub.run}-1`, late.send);
    expect(late.messages).toEqual([stopped]);
  });

  it('ends the watch on close; later subscriptions get nothing', async () => {
    const feed = fakeChanges();
    hub = createLiveHub(feed.changes);
    await hub.close();
    await hub.close();
    expect(feed.closed).toBe(1);
    const client = recorder();
    hub.subscribe(undefined, client.send);
    expect(hub.clients).toBe(0);
  });
});
