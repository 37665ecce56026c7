import type { DeliveryState } from '../../core/schema/delivery.js';
import type { SignalMessage } from '../../core/schema/signal.js';
import { dueAt, needsAnswer, type DeadlineTable } from '../../core/deadlines.js';

/** The facts a state is derived from (the ack comes with the message). */
export interface StateFacts {
  answered: boolean;
  read: boolean;
  /** Why the sender was told the signal is undeliverable, when it was. */
  undeliverable?: string;
}

export interface DeliveryStateContext {
  now: Date;
  deadlines: DeadlineTable;
  /** Why the recipient can no longer take the signal (archived, removed), or undefined when it can. */
  recipientGone: string | undefined;
}

export interface DeliveryStatus {
  state: DeliveryState;
  /** When the signal is or was due, if its type has a deadline. */
  dueAt: string | null;
  /** Why it is undeliverable, when it is. */
  undeliverable: string | null;
}

/**
 * The delivery state of a signal, from the facts on disk. An answer settles everything; an acknowledged
 * signal stays acknowledged, unless it is a question still unanswered at its deadline; a signal nobody
 * took is undeliverable once its recipient is gone, else expired once overdue, else read or delivered.
 * `message.acknowledged` comes from the ack file (src/adapters/file/signals/read-signals.ts).
 */
export function deliveryStatus(
  message: Pick<SignalMessage, 'type' | 'timestamp' | 'acknowledged'>,
  facts: StateFacts,
  context: DeliveryStateContext,
): DeliveryStatus {
  const due = dueAt(message.type, message.timestamp, context.deadlines);
  if (facts.answered) return status('answered', due);
  const overdue = due !== undefined && context.now.getTime() >= due;
  if (message.acknowledged) return status(overdue && needsAnswer(message.type) ? 'expired' : 'acknowledged', due);
  const gone = context.recipientGone ?? facts.undeliverable;
  if (gone !== undefined) return status('undeliverable', due, gone);
  if (overdue) return status('expired', due);
  return status(facts.read ? 'read' : 'delivered', due);
}

/** A module function, not a closure per call: listing a large box derives one status per signal. */
function status(state: DeliveryState, due: number | undefined, undeliverable: string | null = null): DeliveryStatus {
  return { state, dueAt: due === undefined ? null : new Date(due).toISOString(), undeliverable };
}
