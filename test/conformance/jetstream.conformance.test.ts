import { afterAll, beforeAll, describe } from 'vitest';
import { closeOpenBackends } from '../../src/index.js';
import { jetstreamFederations } from '../helpers/jetstream-federation.js';
import { skipWithoutNatsServer, startNatsServer, type NatsServer } from '../helpers/nats-server.js';
import { describeBoundedApply } from './bounded-apply.suite.js';
import { describeExactlyOnceApply } from './exactly-once.suite.js';
import { describeLifecycleStore } from './lifecycle-store.suite.js';
import { describeRegistryStore } from './registry-store.suite.js';
import { describeSignalTransport } from './signal-transport.suite.js';

const SUITE = 'the conformance suite against NATS JetStream';
let server: (NatsServer & { dispose(): Promise<void> }) | undefined;
const jetstreamFederation = jetstreamFederations(() => server!);

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
  describeBoundedApply('nats-jetstream', jetstreamFederation);
});
