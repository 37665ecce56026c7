import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createJetStreamBackend,
  type JetStreamBackend,
  jetstreamBackendSchema,
  loadFederationConfig,
  updateRegistryIn,
} from 'fed/testing';
import { openFederation, sendSignal } from 'fed';
import { jetstreamFederations } from '../../helpers/jetstream-federation.js';
import { skipWithoutNatsServer, startNatsServer } from '../../helpers/nats-server.js';
import { countedSession } from '../../helpers/jetstream-requests.js';

const SUITE =
  'fed signal send in a long-running process on JetStream: the watched registry (issue #31, row 1), against a real nats-server';

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /**
   * A federation with team docs opened as a long-running process opens it (or, `watch: false`, as a
   * library caller opens one without asking for a watch), and another process's connection to it.
   */
  const federation = async ({ watch = true } = {}) => {
    const server = await startNatsServer();
    cleanup.push(server.dispose);
    const made = await jetstreamFederations(() => server)(['docs']);
    const backend = made.backend as JetStreamBackend;
    cleanup.push(() => backend.close());
    const fed = openFederation(made.root, { backend });
    if (watch) fed.watchRegistry();
    const { config } = loadFederationConfig(made.root);
    const other = createJetStreamBackend({
      root: made.root,
      federationName: config.federationName,
      backend: jetstreamBackendSchema.parse(config.backend),
    });
    cleanup.push(() => other.close());
    const counted = await countedSession(backend);
    const { session } = await backend.streams();
    const registryReads = (subjects: string[]) =>
      subjects.filter((subject) => subject.includes(session.names.registryBucket)).length;
    const send = (to = 'docs') => sendSignal(fed, { to, type: 'report', subject: `Status ${randomUUID()}`, body: 'x' });
    /**
     * What a send costs, once this process has heard what the server told it before now: a registry write
     * is told to every connection before its writer is answered, and a flush (one ping) only makes sure the
     * test reads it before its next send, as a person's or an agent's next send would.
     */
    const measured = async (op: () => Promise<unknown>) => {
      await heardEverything(session.nc);
      const count = await counted.measure(op);
      return { roundTrips: count.roundTrips, registryReads: registryReads(count.subjects) };
    };
    // The watch vouches only for reads that begin once the server has its subscription (its own flush,
    // made before this one); the first send then reads the registry and fills the copy.
    await heardEverything(session.nc);
    await send();
    return { server, fed, other, send, measured };
  };

  /** A flush (one ping), again until the connection is back when a restarted server dropped it. */
  const heardEverything = async (nc: NatsConnection) => {
    for (;;) {
      try {
        return await nc.flush();
      } catch {
        await sleep(50);
      }
    }
  };

  const onboard = (other: JetStreamBackend, domain: string) =>
    updateRegistryIn(other.registry, (registry) => ({
      ...registry,
      teams: [...registry.teams, { ...registry.teams[0]!, domain, domainId: domain }],
    }));

  const archive = (other: JetStreamBackend, domain: string) =>
    updateRegistryIn(other.registry, (registry) => ({
      ...registry,
      teams: registry.teams.map((team) => (team.domainId === domain ? { ...team, status: 'archived' } : team)),
    }));

  it('a send in a watched context reads no registry: one round trip, the claim and the publish together', async () => {
    const { send, measured } = await federation();
    for (let i = 0; i < 3; i++) expect(await measured(() => send())).toEqual({ roundTrips: 1, registryReads: 0 });
  });

  it('a context that sends again watches the registry by itself: from its fourth send on, no registry read; an archived team is still refused', async () => {
    const { other, send, measured } = await federation({ watch: false });
    // The first send (in federation()) read the registry; the second reads it too, and starts the watch,
    // which vouches only for a read begun once the server has its subscription: the third send's.
    for (let i = 0; i < 2; i++) expect((await measured(() => send())).registryReads).toBe(1);
    for (let i = 0; i < 3; i++) expect(await measured(() => send())).toEqual({ roundTrips: 1, registryReads: 0 });
    await archive(other, 'docs');
    let refusal: unknown;
    await measured(() => send().catch((error: unknown) => (refusal = error)));
    expect(refusal).toMatchObject({ code: 'TEAM_ARCHIVED' });
  });

  it("a team's entry (what fed mcp's tools look up per call) comes from the copy, with no round trip", async () => {
    const { fed, measured } = await federation();
    expect(await measured(() => fed.team('docs'))).toEqual({ roundTrips: 0, registryReads: 0 });
  });

  it('a team another process onboards is reachable by the next send, which reads the registry once', async () => {
    const { other, send, measured } = await federation();
    await onboard(other, 'ops');
    expect(await measured(() => send('ops'))).toEqual({ roundTrips: 2, registryReads: 1 });
    expect(await measured(() => send('ops'))).toEqual({ roundTrips: 1, registryReads: 0 });
  });

  it('a team unknown in the copy is looked for in a read before the send is refused', async () => {
    const { send, measured } = await federation();
    let refusal: unknown;
    const cost = await measured(() => send('nobody').catch((error: unknown) => (refusal = error)));
    expect(refusal).toMatchObject({ code: 'UNKNOWN_TEAM' });
    expect(cost.registryReads).toBe(1);
  });

  it('a team another process archives is refused by the next send', async () => {
    const { other, send, measured } = await federation();
    await archive(other, 'docs');
    let refusal: unknown;
    await measured(() => send().catch((error: unknown) => (refusal = error)));
    expect(refusal).toMatchObject({ code: 'TEAM_ARCHIVED' });
  });

  it("a write without a compare-and-swap (another tool's plain put) is heard too: the next send reads", async () => {
    const { other, send, measured } = await federation();
    const { registry } = await other.streams();
    const current = await other.registry.read();
    const archived = {
      ...current,
      teams: current.teams.map((team) => ({ ...team, status: 'archived' as const })),
    };
    await registry.put('registry', JSON.stringify(archived));
    let refusal: unknown;
    const cost = await measured(() => send().catch((error: unknown) => (refusal = error)));
    expect(refusal).toMatchObject({ code: 'TEAM_ARCHIVED' });
    expect(cost.registryReads).toBe(1);
    expect(await measured(() => send('meta'))).toEqual({ roundTrips: 1, registryReads: 0 });
  });

  it('a write made while the watching connection is down (the server restarted) is not missed', async () => {
    const { server, other, send, measured } = await federation();
    await server.kill();
    await server.start();
    // Made as soon as the server is back, while the watching connection is still reconnecting: it never
    // hears of this write, so the copy from before the restart must not be used.
    await archive(other, 'docs');
    let refusal: unknown;
    const cost = await measured(() => send().catch((error: unknown) => (refusal = error)));
    expect(refusal).toMatchObject({ code: 'TEAM_ARCHIVED' });
    expect(cost.registryReads).toBe(1);
    // Heard again from then on: meta is reachable with one round trip.
    expect(await measured(() => send('meta'))).toEqual({ roundTrips: 1, registryReads: 0 });
  }, 60_000);

  it('a watch asked for while the server was down listens once it is back: sends read until then', async () => {
    const { server, fed } = await federation();
    const { config } = loadFederationConfig(fed.root);
    await server.kill();
    // A process that starts while the server is down: its watch cannot listen yet.
    const late = createJetStreamBackend({
      root: fed.root,
      federationName: config.federationName,
      backend: jetstreamBackendSchema.parse(config.backend),
    });
    cleanup.push(() => late.close());
    const lateFed = openFederation(fed.root, { backend: late });
    lateFed.watchRegistry();
    await expect(late.streams()).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE' });
    await server.start();
    const counted = await countedSession(late);
    const send = () => sendSignal(lateFed, { to: 'docs', type: 'report', subject: 'late', body: 'x' });
    // The first read listens again; the one after it is vouched for; from then on no read.
    await send();
    await send();
    expect(await counted.measure(send)).toMatchObject({ roundTrips: 1 });
  }, 60_000);

  it('after a reconnect the copy is read again before it is used, even when nothing was written', async () => {
    const { server, send, measured } = await federation();
    await server.kill();
    await server.start();
    expect(await measured(() => send())).toEqual({ roundTrips: 2, registryReads: 1 });
    expect(await measured(() => send())).toEqual({ roundTrips: 1, registryReads: 0 });
  }, 60_000);
});
