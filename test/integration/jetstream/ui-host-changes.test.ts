import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation } from 'fed';
import {
  emptyRegistry,
  type FederationView,
  type HostDirectory,
  type LiveEvent,
  type NeedsYouView,
  startUiServer,
  updateRegistryIn,
} from 'fed/testing';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { readEvents, type SseEvent, tinyAssets, uiSession } from '../../helpers/ui-server-fixtures.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';
import { hostRecord } from '../../helpers/host-record.js';

const SUITE = "the dashboard's feed on JetStream: hosts that start, are lost and come back";

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('tells the pages when a host starts, when it is lost with no write at all, and when it comes back — not at each heartbeat', async () => {
    const env = { FED_NATS_URL: server().url, FED_TELEMETRY_ENABLED: 'false' };
    const root = tempDir();
    initFederation(root, { federationName: 'ui-hosts' }, env);
    const fed = openFederation(root, { env });
    await fed.backend.registry.create(emptyRegistry());
    await onboardTeam(fed, { domain: 'docs' });
    await updateRegistryIn(fed.backend.registry, (registry) => ({
      ...registry,
      teams: registry.teams.map((team) => ({ ...team, host: 'build-2' })),
    }));
    // The hosts' watch starts a moment after the feed's, as it may on a loaded machine: a page that
    // connects meanwhile must still be told the host that starts (no request is answered before).
    const hosts = fed.backend.hosts!;
    const lateHosts: HostDirectory = {
      location: hosts.location,
      put: (record) => hosts.put(record),
      get: (name) => hosts.get(name),
      list: () => hosts.list(),
      watch(listener, onError) {
        const watch = hosts.watch(listener, onError);
        return { ready: watch.ready.then(() => delay(300)), close: () => watch.close() };
      },
    };
    // A watch that breaks fails the test with its reason, not with a wait for a change that never comes.
    let feedBroke: (error: Error) => void = () => undefined;
    const broken = new Promise<never>((_, reject) => (feedBroke = reject));
    broken.catch(() => undefined);
    const ui = await startUiServer(
      { ...fed, backend: { ...fed.backend, hosts: lateHosts } },
      { assetsDir: tinyAssets(), onFeedError: (error) => feedBroke(error) },
    );
    try {
      const { origin, cookie } = uiSession(ui);
      const get = async <T>(path: string) =>
        (await (await fetch(`${origin}${path}`, { headers: { cookie } })).json()) as T;
      const hostsOf = async () => (await get<FederationView>('/api/federation')).hosts.list;
      const hostChanges = (events: SseEvent[]) =>
        events.filter((e) => e.event === 'change' && (JSON.parse(e.data) as LiveEvent).change.scope === 'hosts').length;
      // The host changes a page is told, until `count` of them; a wait that outlasts 30 s fails saying what
      // was told and shown by then, not with the test's timeout.
      const hostChangesTold = async (stream: Response, count: number) => {
        let seen: SseEvent[] = [];
        const told = readEvents(stream, (events) => ((seen = events), hostChanges(events) >= count));
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              void hostsOf().then(
                (shown) =>
                  reject(
                    new Error(
                      `told ${hostChanges(seen)} of ${count} host changes in 30 s; the hosts shown: ${JSON.stringify(shown)}`,
                    ),
                  ),
                // The hosts could not be read either: said as such, never an unhandled rejection.
                reject,
              ),
            30_000,
          );
        });
        try {
          return await Promise.race([told, broken, late]);
        } finally {
          clearTimeout(timer);
        }
      };
      // Lost after three heartbeats: 3 s unheard — a margin a loaded machine's late delivery of a write
      // stays within (a write first heard once its host is past the deadline is told as lost at once).
      const record = hostRecord({ heartbeatMs: 1_000 });
      expect(await hostsOf()).toEqual([]);
      const stream = await fetch(`${origin}/events`, { headers: { cookie } });

      await fed.backend.hosts!.put(record);
      // Two renewals that change nothing shown, then silence: the next change told is the loss.
      const told = hostChangesTold(stream, 2);
      await fed.backend.hosts!.put(record);
      await fed.backend.hosts!.put(record);
      const started = Date.now();
      const events = await told;
      expect(Date.now() - started).toBeGreaterThan(2_000);
      expect(await hostsOf()).toMatchObject([{ name: 'build-2', state: 'lost', teams: ['docs'] }]);
      expect((await get<NeedsYouView>('/api/needs-you')).items).toEqual([
        expect.objectContaining({ kind: 'host-lost', team: 'docs' }),
      ]);
      expect(hostChanges(events)).toBe(2);

      const again = await fetch(`${origin}/events`, { headers: { cookie } });
      const back = hostChangesTold(again, 1);
      await fed.backend.hosts!.put({ ...record, running: ['docs'] });
      await back;
      expect(await hostsOf()).toMatchObject([{ name: 'build-2', state: 'alive', running: ['docs'] }]);
    } finally {
      await ui.close();
    }
  });
});
