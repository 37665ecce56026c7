import { describe, expect, it } from 'vitest';
import { Dispatcher, type LaunchEnd } from '../../../src/apps/serve/dispatcher.js';
import { LaunchFenced, type TakenWork } from 'fed/testing';
import { waitFor } from '../../helpers/fixture-process.js';
import { federationWithWork } from '../../helpers/signal-federation.js';
import { recordingLaunches } from '../../helpers/recording-launches.js';

const COMPLETE: LaunchEnd = {
  ok: true,
  result: { outcome: 'complete', state: 'complete', reason: null, resumeAt: null },
};

/**
 * The dispatcher's read-only state (what the dashboard shows under `fed serve --ui`): the teams it runs,
 * and the teams with work queued — for capacity, or until a time with the reason. The launches here are
 * held by the test, so what is running is what the test says.
 */
describe('Dispatcher.state', () => {
  it('names the team running, and the one waiting for capacity, oldest work first', async () => {
    const fed = await federationWithWork(['api', 'web']);
    const releases: ((end: LaunchEnd) => void)[] = [];
    const dispatcher = new Dispatcher(fed, {
      capacity: 1,
      onEvent: () => undefined,
      launch: () => new Promise<LaunchEnd>((resolve) => releases.push(resolve)),
    });
    const stop = new AbortController();
    const running = dispatcher.run(stop.signal);
    await waitFor(
      () => dispatcher.state().running.length === 1 && dispatcher.state().queued.length === 1,
      10_000,
      'one running, one queued',
    );
    const state = dispatcher.state();
    expect(state).toEqual({
      capacity: 1,
      running: [{ team: 'api', work: 'mission', subject: 'Document api', since: expect.any(String) }],
      queued: [
        {
          team: 'web',
          work: 'mission',
          subject: 'Document web',
          since: expect.any(String),
          waitsFor: 'capacity',
          until: null,
          why: 'for capacity (1 of 1 running)',
        },
      ],
    });
    // A copy: changing it changes nothing of the dispatcher's.
    state.running.length = 0;
    expect(dispatcher.state().running).toHaveLength(1);
    stop.abort();
    await running;
    releases.forEach((release) => release({ ok: false, reason: 'stopped by the test' }));
    await dispatcher.stop(0, new AbortController().signal);
  });

  it('names a team whose launch ended unfinished as waiting until its backoff, with why', async () => {
    const fed = await federationWithWork(['api']);
    const dispatcher = new Dispatcher(fed, {
      capacity: 1,
      backoffMs: 60_000,
      onEvent: () => undefined,
      launch: async () => ({ ok: false, reason: 'the agent crashed' }),
    });
    const stop = new AbortController();
    const running = dispatcher.run(stop.signal);
    await waitFor(() => dispatcher.state().queued[0]?.waitsFor === 'time', 10_000, 'api to wait for its backoff');
    expect(dispatcher.state()).toMatchObject({
      running: [],
      queued: [
        {
          team: 'api',
          waitsFor: 'time',
          until: expect.any(String),
          why: expect.stringContaining('its last launch ended with the work unfinished'),
        },
      ],
    });
    expect(Date.parse(dispatcher.state().queued[0]!.until!)).toBeGreaterThan(Date.now() + 30_000);
    stop.abort();
    await running;
    await dispatcher.stop(0, new AbortController().signal);
  });
});

describe('Dispatcher after a person paused a running team', () => {
  it('backs off nothing: once the team has work again (its resume), it is launched at once', async () => {
    const fed = await federationWithWork(['api']);
    let launches = 0;
    const dispatcher = new Dispatcher(fed, {
      capacity: 1,
      backoffMs: 60_000,
      onEvent: () => undefined,
      launch: async () => {
        launches++;
        // The first launch is stopped by `fed team pause` (its reason as the launch gives it); the team
        // resumed, its work is still there.
        return launches === 1
          ? {
              ok: true,
              result: {
                outcome: 'paused',
                state: 'preparing',
                reason: 'stopped because the team was paused',
                resumeAt: null,
              },
            }
          : new Promise<LaunchEnd>(() => undefined);
      },
    });
    const stop = new AbortController();
    const running = dispatcher.run(stop.signal);
    await waitFor(() => launches === 2, 10_000, 'api launched again, without a backoff');
    expect(dispatcher.state().running.map((r) => r.team)).toEqual(['api']);
    stop.abort();
    await running;
  });
});

describe('Dispatcher fenced: its host unheard so long that the others may soon take it for lost', () => {
  it('stops every launch with the fence as the reason, starts none until the fence is lifted, then at once', async () => {
    const fed = await federationWithWork(['api']);
    const reasons: unknown[] = [];
    let launches = 0;
    const dispatcher = new Dispatcher(fed, {
      capacity: 1,
      backoffMs: 60_000,
      onEvent: () => undefined,
      // Each launch runs until aborted, then ends as a fenced launch does: its team left as it was.
      launch: (_candidate, signal) => {
        launches++;
        return new Promise<LaunchEnd>((resolve) =>
          signal.addEventListener('abort', () => {
            reasons.push(signal.reason);
            resolve({ ok: true, result: { outcome: 'paused', state: 'preparing', reason: 'fenced', resumeAt: null } });
          }),
        );
      },
    });
    const stop = new AbortController();
    const running = dispatcher.run(stop.signal);
    await waitFor(() => launches === 1, 10_000, 'api launched');
    const fence = new LaunchFenced('host alpha out of touch');
    expect(dispatcher.fence(fence)).toEqual(['api']);
    expect(reasons).toEqual([fence]);
    // Its work is still there, but waits: nothing starts on a fenced host.
    await waitFor(() => dispatcher.state().queued.length === 1, 10_000, 'api judged again');
    await new Promise((resolve) => setImmediate(resolve));
    expect(dispatcher.state().running).toEqual([]);
    expect(launches).toBe(1);
    // Lifted: launched again at once, no backoff for an end that was no fault of the team's.
    dispatcher.unfence();
    await waitFor(() => launches === 2, 10_000, 'api launched again, without a backoff');
    stop.abort();
    await running;
    await dispatcher.stop(0, new AbortController().signal);
  });
});

describe('Dispatcher stopped with a fenced launch', () => {
  it('reports its team neither paused nor owed: it was left as it was, for whichever host runs it next', async () => {
    const fed = await federationWithWork(['api']);
    let launches = 0;
    let fenced: (() => void) | undefined;
    const dispatcher = new Dispatcher(fed, {
      capacity: 1,
      backoffMs: 60_000,
      onEvent: () => undefined,
      // Ends as a fenced launch does (outcome paused, its state left as it was) once fenced.
      launch: (_candidate, signal) => {
        launches++;
        return new Promise<LaunchEnd>((resolve) => {
          fenced = () =>
            resolve({ ok: true, result: { outcome: 'paused', state: 'preparing', reason: 'fenced', resumeAt: null } });
          signal.addEventListener('abort', () => {
            if (signal.reason instanceof LaunchFenced) fenced?.();
          });
        });
      },
    });
    const stop = new AbortController();
    const running = dispatcher.run(stop.signal);
    await waitFor(() => launches === 1, 10_000, 'api launched');
    dispatcher.fence(new LaunchFenced('host alpha out of touch'));
    stop.abort();
    await running;
    expect(await dispatcher.stop(0, new AbortController().signal)).toEqual({ paused: [], owed: [] });
  });
});

describe('Dispatcher with unplaced teams', () => {
  /** The shared queue as the dispatcher sees it: what was offered, and each taken work's fate. */
  function fakeQueue() {
    const offered: string[] = [];
    const settled: string[] = [];
    const taken = (team: string, key: string): TakenWork => ({
      team,
      key,
      working: () => undefined,
      done: async () => void settled.push(`${team}: done`),
      retry: (delayMs) => void settled.push(`${team}: retry in ${delayMs} ms`),
    });
    return { offered, settled, taken };
  }

  it("offers an unplaced team's work to the queue instead of running it; runs work taken, acknowledged once its launch ends", async () => {
    const fed = await federationWithWork(['api']);
    const queue = fakeQueue();
    const { launch, launched } = recordingLaunches(COMPLETE);
    const dispatcher = new Dispatcher(fed, {
      capacity: 1,
      onEvent: () => undefined,
      launch,
      unplaced: {
        handles: () => true,
        offer: async (team, key) => void queue.offered.push(`${team}:${key}`),
        claim: async (team) => team,
        ackWaitMs: 30_000,
      },
    });
    const stop = new AbortController();
    const running = dispatcher.run(stop.signal);
    await waitFor(() => queue.offered.length > 0, 10_000, 'api offered');
    expect(queue.offered[0]).toMatch(/^api:mission-\d+$/);
    expect(launched).toEqual([]);
    await dispatcher.startTaken(queue.taken('api', queue.offered[0]!.slice('api:'.length)));
    await waitFor(() => queue.settled.length > 0, 10_000, 'the taken work settled');
    expect(launched).toEqual(['api']);
    expect(queue.settled).toEqual(['api: done']);
    stop.abort();
    await running;
    await dispatcher.stop(0, new AbortController().signal);
  });

  it('gives taken work back with its backoff when the launch ended unfinished', async () => {
    const fed = await federationWithWork(['api']);
    const queue = fakeQueue();
    const dispatcher = new Dispatcher(fed, {
      capacity: 1,
      backoffMs: 60_000,
      onEvent: () => undefined,
      launch: async () => ({ ok: false, reason: 'the agent crashed' }),
      unplaced: {
        handles: () => true,
        offer: async () => undefined,
        claim: async (team) => team,
        ackWaitMs: 30_000,
      },
    });
    await dispatcher.startTaken(queue.taken('api', 'mission-1'));
    await waitFor(() => queue.settled.length > 0, 10_000, 'the taken work settled');
    expect(queue.settled).toEqual(['api: retry in 60000 ms']);
    await dispatcher.stop(0, new AbortController().signal);
  });

  it('gives taken work back for a while, launching nothing, when the team cannot be claimed here (its workspace not to be made yet)', async () => {
    const fed = await federationWithWork(['api']);
    const queue = fakeQueue();
    const { launch, launched } = recordingLaunches(COMPLETE);
    const dispatcher = new Dispatcher(fed, {
      capacity: 1,
      onEvent: () => undefined,
      launch,
      unplaced: { handles: () => true, offer: async () => undefined, claim: async () => undefined, ackWaitMs: 30_000 },
    });
    await dispatcher.startTaken(queue.taken('api', 'mission-1'));
    expect(queue.settled).toEqual(['api: retry in 30000 ms']);
    expect(launched).toEqual([]);
    await dispatcher.stop(0, new AbortController().signal);
  });
});
