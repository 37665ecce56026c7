import { describe, expect, it } from 'vitest';
import { initFederation, openFederation } from 'fed';
import type { JetStreamBackend } from 'fed/testing';
import { hostRecord } from '../../helpers/host-record.js';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE = 'listing a JetStream bucket while it is written: every listing ends';

/** `listing`, or a failure naming what never ended (instead of the test's own timeout). */
const ended = <T>(listing: Promise<T>, what: string) =>
  Promise.race([
    listing,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} never ended`)), 10_000).unref()),
  ]);

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it("hosts, a team's files and its transcripts are listed while another process rewrites them back to back", async () => {
    const env = { FED_NATS_URL: server().url, FED_TELEMETRY_ENABLED: 'false' };
    const root = tempDir();
    initFederation(root, { federationName: 'bucket-keys' }, env);
    // Two processes' worth: one lists, the other writes on a connection of its own.
    const lister = openFederation(root, { env });
    const writer = openFederation(root, { env });
    try {
      await writer.backend.hosts!.put(hostRecord({ name: 'alpha' }));
      await writer.backend.hosts!.put(hostRecord({ name: 'beta' }));
      await writer.backend.teamFiles!.put('docs', 'deliverable', new TextEncoder().encode('draft'));
      await writer.backend.teamFiles!.put('docs', 'learning-log', new TextEncoder().encode('entry'));
      await writer.backend.teamFiles!.put('api', 'deliverable', new TextEncoder().encode('other team'));
      await writer.backend.transcripts!.put('docs', 'run-1.prompt', new TextEncoder().encode('the prompt'));
      await writer.backend.transcripts!.put('docs', 'run-1.log', new TextEncoder().encode('started'));
      await writer.backend.transcripts!.put('api', 'run-1.log', new TextEncoder().encode('other team'));
      let writing = true;
      const renewals = (async () => {
        for (let n = 0; writing; n++) {
          await writer.backend.hosts!.put(hostRecord({ name: 'beta' }));
          await writer.backend.teamFiles!.put('docs', 'learning-log', new TextEncoder().encode(`entry ${n}`));
          // A transcript copied as it grows: its description rewritten each time.
          await writer.backend.transcripts!.put('docs', 'run-1.log', new TextEncoder().encode(`line ${n}\n`));
        }
      })();
      for (let round = 0; round < 200; round++) {
        const hosts = await ended(lister.backend.hosts!.list(), `hosts listing ${round}`);
        expect(hosts.map((host) => host.record.name)).toEqual(['alpha', 'beta']);
        const files = await ended(lister.backend.teamFiles!.read('docs'), `team files listing ${round}`);
        expect([...files.keys()].sort()).toEqual(['deliverable', 'learning-log']);
        const transcripts = await ended(lister.backend.transcripts!.names('docs'), `transcripts listing ${round}`);
        expect(transcripts).toEqual(['run-1.log', 'run-1.prompt']);
      }
      writing = false;
      await renewals;
    } finally {
      await Promise.all([lister, writer].map((fed) => (fed.backend as JetStreamBackend).close()));
    }
  }, 120_000);
});
