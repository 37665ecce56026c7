import type { Consumer } from '@nats-io/jetstream';
import type { JetStreamSession } from 'fed/testing';

/**
 * `session` as the adapter sees it, except that the first consumer it makes is handed to `meanwhile`
 * before the adapter gets it: a fault (a node killed, a message removed) then lands exactly between a
 * read's consumer being made and its first message, with no timing to hope for.
 */
export function onFirstConsumer(
  session: JetStreamSession,
  meanwhile: (consumer: Consumer) => Promise<void>,
): JetStreamSession {
  const consumers = session.js.consumers;
  let first = true;
  const get = async (...args: Parameters<typeof consumers.get>): Promise<Consumer> => {
    const consumer = await consumers.get(...args);
    if (first) {
      first = false;
      await meanwhile(consumer);
    }
    return consumer;
  };
  const js = Object.create(session.js, {
    consumers: { value: Object.create(consumers, { get: { value: get } }) },
  }) as JetStreamSession['js'];
  return { ...session, js };
}
