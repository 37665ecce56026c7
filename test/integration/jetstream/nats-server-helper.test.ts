import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import { skipWithoutNatsServer, startNatsCluster, startNatsServer } from '../../helpers/nats-server.js';

describe.skipIf(skipWithoutNatsServer('the nats-server test helper'))('the nats-server test helper', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const dispose of cleanup.reverse()) await dispose();
  });

  it('a killed server restarts on the same port and store and still holds what it had stored', async () => {
    const server = await startNatsServer();
    cleanup.push(server.dispose);
    const nc = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    cleanup.push(() => nc.close());
    await (await jetstreamManager(nc)).streams.add({ name: 'HELPER', subjects: ['helper.>'] });
    const ack = await jetstream(nc).publish('helper.a', 'one', { msgID: 'm1' });
    expect(ack.seq).toBe(1);

    await server.kill();
    await server.start();
    // The same connection reconnects (a request made before it has is lost, so it is polled); the
    // message survived: the publish was acked, and a SIGKILL of the process is not a power loss.
    await expect
      .poll(
        async () => {
          try {
            return (await (await jetstreamManager(nc, { timeout: 1_000 })).streams.info('HELPER')).state.messages;
          } catch {
            return -1;
          }
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(1);
  });

  it('a 3-node cluster elects a leader and keeps an R3 stream through one node killed', async () => {
    const cluster = await startNatsCluster(3);
    cleanup.push(cluster.dispose);
    const nc = await connect({ servers: cluster.urls.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    cleanup.push(() => nc.close());
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'R3', subjects: ['r3.>'], num_replicas: 3 });
    await jetstream(nc).publish('r3.a', 'one');
    await cluster.nodes[0]!.kill();
    await expect
      .poll(
        async () => {
          try {
            await jetstream(nc).publish('r3.a', 'two', { timeout: 2_000 });
            return (await jsm.streams.info('R3')).state.messages;
          } catch {
            return -1;
          }
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBeGreaterThanOrEqual(2);
  });
});

describe('skipping the NATS suites', () => {
  it('without nats-server a suite is skipped, saying so loudly; under CI it fails, naming what is missing', () => {
    const warnings: string[] = [];
    const missing = 'nats-server not on PATH (install it: apt-get install nats-server)';
    expect(skipWithoutNatsServer('the X suite', missing, {}, (line) => warnings.push(line))).toBe(true);
    expect(warnings).toEqual([expect.stringContaining('the X suite — skipped: nats-server not on PATH')]);
    expect(() => skipWithoutNatsServer('the X suite', missing, { CI: 'true' }, (line) => warnings.push(line))).toThrow(
      'the X suite cannot run: nats-server not on PATH (install it: apt-get install nats-server); CI never skips it',
    );
    expect(skipWithoutNatsServer('the X suite', undefined, {}, (line) => warnings.push(line))).toBe(false);
    expect(warnings).toHaveLength(1);
  });
});
