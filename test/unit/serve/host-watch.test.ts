import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, updateRegistry } from 'fed';
import { hostWatch } from '../../../src/apps/serve/host-watch.js';
import { StoreContact, type HeardHost, type HostDirectory, type ServeEvent } from 'fed/testing';
import { tempDir } from '../../helpers/temp-dir.js';
import { hostRecord } from '../../helpers/host-record.js';

const T0 = Date.parse('2026-11-26T06:00:00.000Z');
const HEARTBEAT_MS = 5_000;

/** Hosts heard at set times, in memory; `lists` counts the reads (each failover try reads them once more). */
class FixedHosts implements HostDirectory {
  readonly location = 'memory';
  lists = 0;
  private readonly hosts = new Map<string, HeardHost>();
  constructor(hosts: HeardHost[]) {
    for (const host of hosts) this.hosts.set(host.record.name, host);
  }
  /** The host's server renewed its record at `at`. */
  hear(name: string, at: number): void {
    this.hosts.set(name, { ...this.hosts.get(name)!, heardAt: new Date(at) });
  }
  async put(): Promise<void> {}
  async get(name: string) {
    return this.hosts.get(name);
  }
  async list() {
    this.lists++;
    return [...this.hosts.values()];
  }
  watch() {
    return { ready: Promise.resolve(), close: async () => {} };
  }
}

const host = (name: string, root: string, heardAt: number): HeardHost => ({
  record: hostRecord({ name, root, startedAt: new Date(T0 - 600_000).toISOString(), heartbeatMs: HEARTBEAT_MS }),
  heardAt: new Date(heardAt),
});

/**
 * A federation on files with failover "auto", its teams placed as `placed` says, whose hosts are `hosts`
 * (in memory); this server is host beta, its clock at T0, its touch with the store as `contact` says.
 */
async function failover(hosts: (root: string) => HeardHost[], placed: Record<string, string>, contact: StoreContact) {
  const root = tempDir();
  initFederation(root, {}, {});
  const configFile = join(root, 'federate.config.json');
  writeFileSync(
    configFile,
    JSON.stringify({ ...JSON.parse(readFileSync(configFile, 'utf8')), serve: { failover: 'auto' } }),
  );
  const state = { now: T0 };
  const clock = { now: () => new Date(state.now) };
  for (const domain of Object.keys(placed))
    await onboardTeam(openFederation(root, clock), { domain }, { durable: false });
  await updateRegistry(openFederation(root, clock), (registry) => {
    for (const team of registry.teams) team.host = placed[team.domainId];
    return registry;
  });
  const directory = new FixedHosts(hosts(root));
  const files = openFederation(root, clock);
  const backend = Object.create(files.backend, { hosts: { value: directory } });
  const fed = openFederation(root, { ...clock, backend });
  const events: ServeEvent[] = [];
  const watch = hostWatch(fed, 'beta', contact, (event) => events.push(event));
  return { state, directory, events, watch, fed };
}

/** A server in touch with the store for the last 20 s, a heartbeat at a time. */
function inTouch(): StoreContact {
  const contact = new StoreContact(HEARTBEAT_MS);
  for (let at = T0 - 20_000; at < T0; at += HEARTBEAT_MS) contact.answered(new Date(at));
  return contact;
}

describe("a server's failover of a lost host's teams", () => {
  it('a refused move is tried again only after a while, and said once per reason', async () => {
    // alpha is lost; beta — this server's host — was not heard from either, so a move to it is refused.
    const { state, directory, events, watch } = await failover(
      (root) => [host('alpha', '/alpha', T0 - 60_000), host('beta', root, T0 - 60_000)],
      { docs: 'alpha' },
      inTouch(),
    );
    const warnings = () => events.filter((event) => event.kind === 'warning');
    const beat = async () => {
      state.now += HEARTBEAT_MS;
      await watch();
    };

    await watch();
    expect(warnings()).toEqual([
      expect.objectContaining({
        text: expect.stringMatching(/^docs: not moved from lost host alpha: host beta is lost/),
      }),
    ]);
    const tried = directory.lists;

    // Heartbeats within the wait: the move is not tried (no read of the hosts for it), nothing said.
    for (let i = 0; i < 5; i++) await beat();
    expect(directory.lists - tried).toBe(5); // each heartbeat's own listing only
    // Past it: tried again, refused for the same reason, not said again.
    await beat();
    expect(directory.lists - tried).toBe(7);
    expect(warnings()).toHaveLength(1);
    expect(events.filter((event) => event.kind === 'host-lost')).toHaveLength(1);
  });

  it('after an outage of the store, every host gets a full hostLostAfter to beat again before one is lost', async () => {
    // The store was out of everyone's reach for 25 s: alpha's and gamma's records are that old when it is back.
    const contact = new StoreContact(HEARTBEAT_MS);
    contact.answered(new Date(T0 - 25_000));
    const { state, directory, events, watch } = await failover(
      (root) => [host('alpha', '/alpha', T0 - 25_000), host('beta', root, T0), host('gamma', '/gamma', T0 - 25_000)],
      { docs: 'alpha', web: 'gamma' },
      contact,
    );
    const judged = () => events.filter((event) => event.kind === 'host-lost' || event.kind === 'moved');
    const beat = async () => {
      state.now += HEARTBEAT_MS;
      directory.hear('beta', state.now);
      await watch();
    };

    // This server's first beat back: nobody is lost for what no one could write.
    await watch();
    await beat();
    // gamma reconnects and beats again; alpha does not.
    directory.hear('gamma', state.now);
    await beat();
    await beat();
    expect(judged()).toEqual([]);
    // Past a full hostLostAfter (15 s) of silence this server heard: alpha is lost, its team moved here.
    await beat();
    expect(judged()).toEqual([
      expect.objectContaining({ kind: 'host-lost', host: 'alpha', teams: ['docs'] }),
      expect.objectContaining({ kind: 'moved', team: 'docs', from: 'alpha', to: 'beta', by: 'failover' }),
    ]);
  });
});
