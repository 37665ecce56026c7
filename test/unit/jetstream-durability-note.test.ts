import { describe, expect, it } from 'vitest';
import { durabilityNote } from '../../src/adapters/jetstream/durability-note.js';

describe('the JetStream durability note', () => {
  it('warns about a lone 2.9 node, which cannot sync every write, and names the fixes', () => {
    expect(durabilityNote('2.9.10', 1)).toBe(
      'nats-server 2.9.10 syncs JetStream data to disk periodically (every 2 minutes by default) and cannot sync every write: ' +
        'with one copy of each stream, a power loss can lose the last acknowledged signals, acks and state changes (a crash of the server process loses nothing). ' +
        'Use "replicas": 3 on a 3-node cluster, or nats-server 2.10 or later with jetstream { sync_interval: always }',
    );
    expect(durabilityNote('2.9.10', 2)).toContain('with 2 copies of each stream');
  });

  it('on 2.10 and later points at sync_interval: always', () => {
    expect(durabilityNote('2.10.22', 1)).toMatch(
      /^nats-server 2\.10\.22 with one copy of each stream: unless it runs with jetstream \{ sync_interval: always \}/,
    );
  });

  it('says nothing with three replicas or more', () => {
    expect(durabilityNote('2.9.10', 3)).toBeUndefined();
    expect(durabilityNote('2.11.0', 5)).toBeUndefined();
  });
});
