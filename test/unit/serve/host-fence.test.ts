import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HostFence } from '../../../src/apps/serve/host-fence.js';

/** A host's fence, 8 s: its agents stopped once no heartbeat was written for that long, and started again after. */
describe("a host's fence", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const fence = () => {
    const told: string[] = [];
    const hostFence = new HostFence(
      8_000,
      () => told.push('fenced'),
      () => told.push('lifted'),
    );
    return { hostFence, told };
  };

  it('holds while heartbeats are written, counted from each one sent', () => {
    const { hostFence, told } = fence();
    for (let beat = 0; beat < 5; beat++) {
      hostFence.written(Date.now(), Date.now() + 20);
      vi.advanceTimersByTime(5_000);
    }
    expect(told).toEqual([]);
    hostFence.stop();
  });

  it('fences 8 s after the last heartbeat written was sent, and lifts at the next one written', () => {
    const { hostFence, told } = fence();
    const sentAt = Date.now();
    vi.advanceTimersByTime(300);
    hostFence.written(sentAt, Date.now());
    vi.advanceTimersByTime(7_699);
    expect(told).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(told).toEqual(['fenced']);
    vi.advanceTimersByTime(20_000);
    hostFence.written(Date.now(), Date.now());
    expect(told).toEqual(['fenced', 'lifted']);
    hostFence.stop();
  });

  it('counts a heartbeat held through an outage from shortly before its acknowledgement, not from its send', () => {
    const { hostFence, told } = fence();
    const sentAt = Date.now();
    vi.advanceTimersByTime(20_000);
    hostFence.written(sentAt, Date.now());
    // Written at the earliest a second before it was acknowledged: 7 s left.
    vi.advanceTimersByTime(6_999);
    expect(told).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(told).toEqual(['fenced']);
    hostFence.stop();
  });

  it('fences no more once stopped', () => {
    const { hostFence, told } = fence();
    hostFence.written(Date.now(), Date.now());
    hostFence.stop();
    vi.advanceTimersByTime(60_000);
    expect(told).toEqual([]);
  });
});
