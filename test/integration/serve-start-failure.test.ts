import { describe, expect, it } from 'vitest';
import { type Federation, initFederation, onboardTeam, openFederation } from 'fed';
import { loadConfig, serveFederation, serveLeases } from 'fed/testing';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `fed serve` starts its parts one after the other — the change feed, the actors, the monitor, the
 * schedules, the config watch —, holding its lease from the first. A start that fails half way must stop
 * what it started and let go of the lease: the next start is not refused by a server that never ran.
 */
describe('a fed serve whose start fails half way', () => {
  it('throws what failed, stops what it had started and holds no lease', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    const fed = openFederation(root);
    const broken = new Error('the change feed cannot be watched here');
    const changes = {
      watch: () => {
        throw broken;
      },
    };
    const failing = { ...fed, backend: { ...fed.backend, changes } } as Federation;
    await expect(
      serveFederation(failing, {
        config: loadConfig(root, {}).config,
        signal: new AbortController().signal,
        host: 'here',
        onEvent: () => undefined,
      }),
    ).rejects.toBe(broken);
    expect(serveLeases(root)).toEqual([]);
    // And a server can start at once.
    const started = new AbortController();
    const serving = serveFederation(fed, {
      config: loadConfig(root, {}).config,
      signal: started.signal,
      host: 'here',
      stopGraceMs: 0,
      onEvent: (event) => event.kind === 'started' && started.abort(),
    });
    await expect(serving).resolves.toEqual({ paused: [], owed: [] });
  });
});
