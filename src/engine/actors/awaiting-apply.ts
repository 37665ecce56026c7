import type { LifecycleEnvelope } from '../../core/schema/lifecycle-state.js';
import type { SignalMessage, SignalType } from '../../core/schema/signal.js';
import type { SignalInbox } from '../../ports/signal-transport.js';
import { awaitsApply } from './team-lifecycle.js';

/**
 * The first signal of a team's inbox, in inbox order (the oldest), that its lifecycle has not applied yet
 * — of `types`, when given. Only unacknowledged signals are read, a batch at a time up to the first — the
 * consumer applies nothing else — and their acks are taken as listed: a long-lived inbox holds a signal
 * and an ack per message of its history, and the callers (a launch waiting for its consumer, `fed serve`
 * judging a team at every change of it) would otherwise read all of it each time, each dispatch costing
 * more than the last.
 */
export async function firstAwaitingApply(
  inbox: SignalInbox,
  envelope: LifecycleEnvelope,
  types?: readonly SignalType[],
): Promise<SignalMessage | undefined> {
  for await (const { signals } of inbox.pendingBatches({ trustAcks: true, ...(types && { types }) })) {
    // An adapter may hand back other types too (PendingBatchOptions.types).
    const first = signals.find(
      ({ message }) => (!types || types.includes(message.type)) && awaitsApply(envelope, message),
    );
    if (first) return first.message;
  }
  return undefined;
}
