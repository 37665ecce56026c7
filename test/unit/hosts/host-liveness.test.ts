import { describe, expect, it } from 'vitest';
import type { HeardHost } from 'fed';
import { fenceAfterMs, heartbeatMs, hostState, lostAfterMs } from '../../../src/apps/hosts/host-liveness.js';

/** A host's liveness is the age of its record's last write, by the reader's clock, against a few of its heartbeats. */
describe('host liveness', () => {
  const heardAt = new Date('2026-11-26T02:00:00Z');
  const host = (changes: Partial<HeardHost['record']> = {}): HeardHost => ({
    heardAt,
    record: {
      name: 'alpha',
      root: '/srv/shop',
      pid: 42,
      version: '0.1.0',
      capacity: 2,
      running: [],
      startedAt: '2026-11-26T01:00:00.000Z',
      heartbeatMs: 5_000,
      stoppedAt: null,
      ...changes,
    },
  });
  const after = (ms: number) => new Date(heardAt.getTime() + ms);

  it('is alive until three of its own heartbeats have passed unheard, then lost', () => {
    expect(hostState(undefined, host(), after(15_000))).toEqual({ state: 'alive', ageMs: 15_000 });
    expect(hostState(undefined, host(), after(15_001))).toEqual({ state: 'lost', ageMs: 15_001 });
    expect(hostState(undefined, host({ heartbeatMs: 1_000 }), after(3_001)).state).toBe('lost');
  });

  it('takes serve.hostLostAfter of the reader over the host’s heartbeats', () => {
    expect(lostAfterMs({ hostLostAfter: '1m' }, host())).toBe(60_000);
    expect(hostState({ hostLostAfter: '1m' }, host(), after(59_000)).state).toBe('alive');
  });

  it('is stopped, never lost, once its server stopped on purpose', () => {
    expect(hostState(undefined, host({ stoppedAt: heardAt.toISOString() }), after(3_600_000)).state).toBe('stopped');
  });

  it('renews every serve.heartbeat, 5 s unless told', () => {
    expect(heartbeatMs(undefined)).toBe(5_000);
    expect(heartbeatMs({ heartbeat: '500ms' })).toBe(500);
  });

  it('for a server acting on a loss, counts silence only from when it was itself in touch with the store', () => {
    // Back from an outage 1 s ago: a record 25 s old is no loss yet — the host gets a full lostAfter to beat.
    const back = after(24_000);
    expect(hostState(undefined, host(), after(25_000), back)).toEqual({ state: 'alive', ageMs: 25_000 });
    expect(hostState(undefined, host(), after(39_000), back).state).toBe('alive');
    expect(hostState(undefined, host(), after(39_001), back).state).toBe('lost');
    // In touch all along: the record's age alone.
    expect(hostState(undefined, host(), after(15_001), after(-60_000)).state).toBe('lost');
  });

  it("fences a host's agents early enough to have them stopped before a loss, or not at all when that leaves no room", () => {
    // Lost after 15 s; agents stopped within 6 s: fenced 8 s after the last heartbeat written, a second to spare.
    expect(fenceAfterMs(undefined, 6_000)).toBe(8_000);
    expect(fenceAfterMs({ heartbeat: '500ms', hostLostAfter: '8s' }, 6_000)).toBe(1_000);
    // Within a late heartbeat's time (7.5 s), a store merely slow would stop every agent: no fencing.
    expect(fenceAfterMs({ hostLostAfter: '14s' }, 6_000)).toBeUndefined();
    expect(fenceAfterMs({ heartbeat: '500ms', hostLostAfter: '2s' }, 6_000)).toBeUndefined();
  });

  it('never has a negative age when the reader’s clock is behind the store’s', () => {
    expect(hostState(undefined, host(), after(-2_000))).toEqual({ state: 'alive', ageMs: 0 });
  });
});
