import type { ConsumerMessages, DeliverPolicy } from '@nats-io/jetstream';
import type { FederationStreams } from './federation-streams.js';
import type { JetStreamNames } from './names.js';

/**
 * Arrivals in a party's inbox, told by the stored messages themselves: an ordered consumer on the inbox's
 * subjects, from the next message stored on (headers only: nothing of a signal is fetched or kept). The
 * server hands it a message only once the stream holds it, so a consumer woken by it always finds the
 * signal on its read — unlike a plain subscription, which can hear a publish before the store has it.
 * Told once when the consumer is live, since anything may have arrived before. Returns the stop.
 */
export function watchInboxArrivals(
  streams: () => Promise<FederationStreams>,
  names: JetStreamNames,
  party: string,
  onArrival: () => void,
  onError: (error: Error) => void,
): () => void {
  let stopped = false;
  let messages: ConsumerMessages | undefined;
  void (async () => {
    const { session } = await streams();
    if (stopped) return;
    const consumer = await session.js.consumers.get(names.signalStream, {
      filter_subjects: names.inboxFilter(party),
      // DeliverPolicy.New, spelled out so this module needs no runtime import of the client.
      deliver_policy: 'new' as DeliverPolicy,
      headers_only: true,
    });
    if (stopped) return;
    messages = await consumer.consume();
    if (stopped) return messages.stop();
    onArrival();
    for await (const _ of messages) onArrival();
  })().catch((error: unknown) => {
    if (!stopped) onError(error as Error);
  });
  return () => {
    stopped = true;
    messages?.stop();
  };
}
