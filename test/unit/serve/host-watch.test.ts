import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, updateRegistry } from 'fed';
import { hostWatch } from '../../../src/apps/serve/host-watch.js';
import type { HeardHost, HostDirectory, ServeEvent } from 'fed/testing';
import { tempDir } from '../../helpers/temp-dir.js';
import { hostRecord } from '../../helpers/host-record.js';

const T0 = Date.parse('2026-11-26T06:00:00.000Z');

/** Hosts heard at fixed times, in memory; `lists` counts the reads (each failover try reads them once more). */
class FixedHosts implements HostDirectory {
  readonly location = 'memory';
  lists = 0;
  constructor(private readonly hosts: HeardHost[]) {}
  async put(): Promise<void> {}
  async get(name: string) {
    return this.hosts.find((host) => host.record.name === name);
  }
  async list() {
    this.lists++;
    return this.hosts;
  }
  watch() {
    return { ready: Promise.resolve(), close: async () => {} };
  }
}

const host = (name: string, root: string, heardAt: number): HeardHost => ({
  record: hostRecord({ name, root, startedAt: new Date(T0 - 600_000).toISOString(), heartbeatMs: 5_000 }),
  heardAt: new Date(heardAt),
});

describe("a server's failover of a lost host's teams", () => {
  it('a refused move is tried again only after a while, and said once per reason', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const configFile = join(root, 'federate.config.json');
    writeFileSync(
      configFile,
      JSON.stringify({ ...JSON.parse(readFileSync(configFile, 'utf8')), serve: { failover: 'auto' } }),
    );
    let now = T0;
    const clock = { now: () => new Date(now) };
    await onboardTeam(openFederation(root, clock), { domain: 'docs' }, { durable: false });
    await updateRegistry(openFederation(root, clock), (registry) => {
      registry.teams[0]!.host = 'alpha';
      return registry;
    });
    // alpha is lost; beta — this server's host — was not heard from either, so a move to it is refused.
    const hosts = new FixedHosts([host('alpha', '/alpha', T0 - 60_000), host('beta', root, T0 - 60_000)]);
    const files = openFederation(root, clock);
    const backend = Object.create(files.backend, { hosts: { value: hosts } });
    const fed = openFederation(root, { ...clock, backend });
    const events: ServeEvent[] = [];
    const watch = hostWatch(fed, 'beta', (event) => events.push(event));
    const warnings = () => events.filter((event) => event.kind === 'warning');

    await watch();
    expect(warnings()).toEqual([
      expect.objectContaining({
        text: expect.stringMatching(/^docs: not moved from lost host alpha: host beta is lost/),
      }),
    ]);
    const tried = hosts.lists;

    // Heartbeats within the wait: the move is not tried (no read of the hosts for it), nothing said.
    now += 5_000;
    await watch();
    now += 20_000;
    await watch();
    expect(hosts.lists - tried).toBe(2); // each heartbeat's own listing only
    // Past it: tried again, refused for the same reason, not said again.
    now += 10_000;
    await watch();
    expect(hosts.lists - tried).toBe(4);
    expect(warnings()).toHaveLength(1);
    expect(events.filter((event) => event.kind === 'host-lost')).toHaveLength(1);
  });
});
