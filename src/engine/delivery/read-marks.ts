import type { DeliveryFactStore } from '../../ports/delivery-fact-store.js';
import type { SignalMessage } from '../../core/schema/signal.js';

/**
 * Record that `reader` took these signals, for those addressed to it and not acknowledged yet: the
 * `read` state between `delivered` and `acknowledged`. Marks are hints, not records of effect, so they
 * are written without fsync; the first one of each signal is kept.
 */
export async function markSignalsRead(
  facts: DeliveryFactStore,
  reader: string,
  messages: readonly SignalMessage[],
  now = new Date(),
): Promise<number> {
  const unacknowledged = messages.filter((message) => message.to === reader && !message.acknowledged);
  const read = await facts.recorded(
    unacknowledged.map((message) => message.id),
    ['read'],
  );
  let marked = 0;
  for (const message of unacknowledged) {
    if (read.has(message.id.toLowerCase())) continue;
    if (await facts.record(message.id, 'read', { readAt: now.toISOString(), by: reader }, { durable: false })) marked++;
  }
  return marked;
}
