import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { closeOpenBackends, emptyRegistry, openBackend, updateRegistryIn, type JetStreamBackend, type RegistryEntry } from '../../src/index.js';
import { skipWithoutNatsServer, startNatsServer, type NatsServer } from '../helpers/nats-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import type { ConformanceFactory } from './conformance-federation.js';
import { describeExactlyOnceApply } from './exactly-once.suite.js';
import { describeLifecycleStore } from './lifecycle-store.suite.js';
import { describeRegistryStore } from './registry-store.suite.js';
import { describeSignalTransport } from './signal-transport.suite.js';

const SUITE = 'the conformance suite against NATS JetStream';
let server: (NatsServer & { dispose(): Promise<void> }) | undefined;
let federations = 0;

/**
 * A JetStream federation: a root whose federate.config.json selects the JetStream backend on the test's
 * nats-server under a name of its own, so every test gets a fresh federation on one server. The workers
 * open it as configured (`openBackend`), exactly as fed's commands do.
 */
const jetstreamFederation: ConformanceFactory = async (domains) => {
  const root = tempDir('fed-conformance-js-');
  const federationName = `conformance-${process.pid}-${++federations}`;
  writeFileSync(join(root, 'federate.config.json'), JSON.stringify({ federationName, backend: { type: 'jetstream', servers: [server!.url] } }));
  const backend = openBackend(root) as JetStreamBackend;
  await backend.registry.create(emptyRegistry());
  const teams: Record<string, RegistryEntry> = {};
  for (const domain of domains) {
    const location = join(root, '.fed', 'teams', domain);
    mkdirSync(location, { recursive: true });
    teams[domain] = { domain, domainId: domain, archetypeId: 'deliverable', placementType: 'directory', onboardedAt: new Date().toISOString(), location, host: hostname(), status: 'active' };
    await updateRegistryIn(backend.registry, (registry) => ({ ...registry, teams: [...registry.teams, teams[domain]!] }));
  }
  const { session } = await backend.streams();
  return {
    adapter: 'configured',
    root,
    backend,
    meta: { id: 'meta', entry: undefined },
    teams,
    plantInvalid: async (party, content) => String((await session.js.publish(session.names.inboxSubject(party.id, 'meta'), content)).seq),
    quarantined: async (party) => {
      const kept: string[] = [];
      for (let seq = 1; ; ) {
        const message = await session.jsm.direct.getMessage(session.names.quarantineStream, { next_by_subj: session.names.quarantineSubject(party.id), seq });
        if (!message) return kept;
        kept.push(message.string());
        seq = message.seq + 1;
      }
    },
  };
};

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await closeOpenBackends();
    await server?.dispose();
  });
  describeSignalTransport('nats-jetstream', jetstreamFederation);
  describeRegistryStore('nats-jetstream', jetstreamFederation);
  describeLifecycleStore('nats-jetstream', jetstreamFederation);
  describeExactlyOnceApply('nats-jetstream', jetstreamFederation);
});
