import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyRegistry, type JetStreamBackend } from 'fed/testing';
import { closeOpenBackends, openFederation, runDoctor } from 'fed';
import { skipWithoutNatsServer, startNatsCluster, type NatsCluster } from '../../helpers/nats-server.js';
import { tempDir } from '../../helpers/temp-dir.js';

const SUITE = 'fed doctor on a JetStream cluster: streams that keep fewer copies than backend.replicas asks';

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  let cluster: NatsCluster | undefined;
  afterAll(async () => {
    await closeOpenBackends();
    await cluster?.dispose();
  });

  it('reports each stream and bucket made with one copy after replicas was raised to 3, and --fix raises them', async () => {
    cluster = await startNatsCluster(3);
    const root = tempDir();
    const configure = (replicas: number) =>
      writeFileSync(
        join(root, 'federate.config.json'),
        JSON.stringify({
          federationName: 'raised',
          backend: { type: 'jetstream', servers: cluster!.urls.split(','), replicas },
        }),
      );
    configure(1);
    expect(await openFederation(root).backend.registry.create(emptyRegistry())).toBe(true);
    expect((await runDoctor(openFederation(root))).findings).toEqual([]);

    configure(3);
    const before = await runDoctor(openFederation(root));
    expect(before.findings.map((f) => [f.check, f.path.replace(/^.* stream /, ''), f.fixable])).toEqual(
      [
        'FED_raised_SIGNALS',
        'FED_raised_JOURNAL',
        'FED_raised_QUARANTINE',
        'KV_fed_raised_acks',
        'KV_fed_raised_registry',
        'KV_fed_raised_lifecycle',
        'KV_fed_raised_hosts',
        'KV_fed_raised_files',
        'OBJ_fed_raised_transcripts',
      ].map((name) => ['backend', name, true]),
    );
    expect(before.findings[0]!.problem).toBe(
      'stream FED_raised_SIGNALS keeps 1 copy of each message, but backend.replicas asks for 3',
    );

    const fixed = await runDoctor(openFederation(root), { fix: true });
    expect(fixed.findings.map((f) => f.fixError ?? f.fixed)).toEqual(Array(9).fill(true));
    expect(fixed.healthy).toBe(true);
    const after = await runDoctor(openFederation(root));
    expect(after).toMatchObject({ findings: [], healthy: true });
    // No durability note any more: three copies on a cluster (the work queue's, team files' and transcripts' notes stay).
    expect(after.notes.filter((note) => !/^(work queue|team files|transcripts) /.test(note))).toEqual([]);
    const { session } = await (openFederation(root).backend as JetStreamBackend).streams();
    expect((await session.jsm.streams.info('KV_fed_raised_registry')).config.num_replicas).toBe(3);
  });
});
