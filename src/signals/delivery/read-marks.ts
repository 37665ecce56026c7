import type { SignalMessage } from '../../schema/signal.js';
import { FileDeliveryFactStore } from './delivery-fact-store.js';

/**
 * Record that `reader` took these signals, for those addressed to it and not acknowledged yet: the
 * `read` state between `delivered` and `acknowledged`. Marks are hints, not records of effect, so they
 * are written without fsync; the first one of each signal is kept.
 */
export function markSignalsRead(root: string, reader: string, messages: readonly SignalMessage[], now = new Date()): number {
  const facts = new FileDeliveryFactStore(root, { durable: false });
  let marked = 0;
  for (const message of messages) {
    if (message.to !== reader || message.acknowledged || facts.has(message.id, 'read')) continue;
    if (facts.record(message.id, 'read', { readAt: now.toISOString(), by: reader })) marked++;
  }
  return marked;
}
