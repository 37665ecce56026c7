import type { LifecycleEnvelope } from '../../core/schema/lifecycle-state.js';
import type { SignalMessage, SignalType } from '../../core/schema/signal.js';
import type { SignalInbox } from '../../ports/signal-transport.js';
import { awaitsApply } from './team-lifecycle.js';

/**
 * The signals of a team's inbox its lifecycle has not applied yet (of `types`, when given), in inbox
 * order. Only unacknowledged signals are read — the consumer applies nothing else — and their acks are
 * taken as listed: a long-lived inbox holds a signal and an ack per message of its history, and the
 * callers (a launch waiting for its consumer, `fed serve` judging a team at every change of it) would
 * otherwise read all of it each time, each dispatch costing more than the last.
 */
export async function* awaitingApply(
  inbox: SignalInbox,
  envelope: LifecycleEnvelope,
  types?: readonly SignalType[],
): AsyncGenerator<SignalMessage> {
  for await (const { signals } of inbox.pendingBatches({ trustAcks: true, ...(types && { types }) })) {
    for (const { message } of signals) {
      // An adapter may hand back other types too (PendingBatchOptions.types).
      if ((!types || types.includes(message.type)) && awaitsApply(envelope, message)) yield message;
    }
  }
}
