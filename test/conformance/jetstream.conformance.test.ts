import { describe } from 'vitest';
import { jetstreamFederations } from '../helpers/jetstream-federation.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { useNatsServer } from '../helpers/use-nats-server.js';
import { describeChangeFeed } from './change-feed.suite.js';
import { describeBoundedApply } from './bounded-apply.suite.js';
import { describeRunningActor } from './running-actor.suite.js';
import { describeDeliveryFacts } from './delivery-facts.suite.js';
import { describeExactlyOnceApply } from './exactly-once.suite.js';
import { describeLifecycleStore } from './lifecycle-store.suite.js';
import { describeRegistryStore } from './registry-store.suite.js';
import { describeSignalTransport } from './signal-transport.suite.js';

const SUITE = 'the conformance suite against NATS JetStream';

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();
  const jetstreamFederation = jetstreamFederations(server);
  describeSignalTransport('nats-jetstream', jetstreamFederation);
  describeRegistryStore('nats-jetstream', jetstreamFederation);
  describeLifecycleStore('nats-jetstream', jetstreamFederation);
  describeExactlyOnceApply('nats-jetstream', jetstreamFederation);
  describeBoundedApply('nats-jetstream', jetstreamFederation);
  describeRunningActor('nats-jetstream', jetstreamFederation);
  describeDeliveryFacts('nats-jetstream', jetstreamFederation);
  let changeFeeds = 0;
  describeChangeFeed('nats-jetstream', () => ({
    federationName: `changes-${process.pid}-${++changeFeeds}`,
    backend: { type: 'jetstream', servers: [server().url] },
  }));
});
