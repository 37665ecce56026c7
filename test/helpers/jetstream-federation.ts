import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { openFederation, type RegistryEntry } from 'fed';
import { emptyRegistry, type JetStreamBackend, updateRegistryIn } from 'fed/testing';
import type { ConformanceFactory } from '../conformance/conformance-federation.js';
import type { NatsServer } from './nats-server.js';
import { tempDir } from './temp-dir.js';

let federations = 0;

/**
 * A factory of JetStream federations on `server` for the conformance suite and the JetStream fault tests:
 * a root whose federate.config.json selects the JetStream backend under a name of its own, so every test
 * gets a fresh federation on one server. The workers open it as configured (`openBackend`), exactly as
 * fed's commands do.
 */
export function jetstreamFederations(server: () => NatsServer): ConformanceFactory {
  return async (domains) => {
    const root = tempDir('fed-conformance-js-');
    const federationName = `conformance-${process.pid}-${++federations}`;
    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({ federationName, backend: { type: 'jetstream', servers: [server().url] } }),
    );
    const backend = openFederation(root).backend as JetStreamBackend;
    await backend.registry.create(emptyRegistry());
    const teams: Record<string, RegistryEntry> = {};
    for (const domain of domains) {
      const location = join(root, '.fed', 'teams', domain);
      mkdirSync(location, { recursive: true });
      teams[domain] = {
        domain,
        domainId: domain,
        archetypeId: 'deliverable',
        placementType: 'directory',
        onboardedAt: new Date().toISOString(),
        location,
        host: hostname(),
        status: 'active',
      };
      await updateRegistryIn(backend.registry, (registry) => ({
        ...registry,
        teams: [...registry.teams, teams[domain]!],
      }));
    }
    const { session } = await backend.streams();
    return {
      adapter: 'configured',
      root,
      backend,
      meta: { id: 'meta', entry: undefined },
      teams,
      plantInvalid: async (party, content) =>
        String((await session.js.publish(session.names.inboxSubject(party.id, 'meta'), content)).seq),
      quarantined: async (party) => {
        const kept: string[] = [];
        for (let seq = 1; ;) {
          const message = await session.jsm.direct.getMessage(session.names.quarantineStream, {
            next_by_subj: session.names.quarantineSubject(party.id),
            seq,
          });
          if (!message) return kept;
          kept.push(message.string());
          seq = message.seq + 1;
        }
      },
    };
  };
}
