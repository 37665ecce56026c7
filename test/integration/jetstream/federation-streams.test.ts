import { describe, expect, it } from 'vitest';
import { createJetStreamBackend, jetstreamBackendSchema, openJetStream } from 'fed/testing';
import { BackendUnavailableError } from 'fed';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE = "a new federation's streams and buckets, created by whoever opens it first, against a real nats-server";

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();
  const options = (federationName: string) => ({
    root: '/tmp',
    federationName,
    backend: jetstreamBackendSchema.parse({ type: 'jetstream', servers: [server().url] }),
  });

  it('six connections opening one new federation at once all open it (the server refuses some racing adds as overlapping)', async () => {
    // Two `fed init`s on one server once failed this way: "subjects overlap with an existing stream".
    // Before the fix about one round in fifteen lost the race; sixty rounds all but always show it.
    const refused: unknown[] = [];
    for (let round = 0; round < 60; round++) {
      const backends = Array.from({ length: 6 }, () => createJetStreamBackend(options(`race-${round}`)));
      const opened = await Promise.allSettled(backends.map((backend) => backend.streams()));
      refused.push(...opened.flatMap((result) => (result.status === 'rejected' ? [result.reason] : [])));
      await Promise.all(backends.map((backend) => backend.close()));
    }
    expect(refused).toEqual([]);
  });

  it("another stream holding the federation's subjects is a clear error naming them, after the race has had its time", async () => {
    const squatter = await openJetStream(options('other'));
    try {
      await squatter.jsm.streams.add({ name: 'SQUATTER', subjects: ['fed.taken.inbox.>'] });
      const backend = createJetStreamBackend(options('taken'));
      const error = await backend.streams().catch((e: unknown) => e);
      await backend.close();
      expect(error).toBeInstanceOf(BackendUnavailableError);
      expect((error as Error).message).toBe(
        `the NATS server at ${server().url} has stream SQUATTER on fed.taken.inbox.>, which federation taken's stream FED_taken_SIGNALS needs; remove that stream (nats stream rm) or give this federation another federationName in federate.config.json`,
      );
    } finally {
      await squatter.close();
    }
  });
});
