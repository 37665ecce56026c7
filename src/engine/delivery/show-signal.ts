import { RefusedError, InvalidInputError } from '../../core/errors.js';
import type { SignalDeadlines } from '../../core/schema/config.js';
import type { DeliveryFacts } from '../../core/schema/delivery.js';
import { signalMessageSchema, type SignalMessage } from '../../core/schema/signal.js';
import type { SignalBox } from '../../core/schema/signal.js';
import { deadlineTable } from '../../core/deadlines.js';
import { DeliveryInspector } from './delivery-inspector.js';
import type { DeliveryStatus } from './delivery-state.js';
import { findSignalById } from './find-signal.js';
import type { Federation } from '../context.js';
import { assertOwnParty, callerIdOf, type CallerOption } from '../../core/resolve-party.js';

export interface SignalHistoryEvent {
  at: string;
  event: 'sent' | 'read' | 'acknowledged' | 'answered' | 'expired' | 'escalated' | 'undeliverable';
  /** Who or what: the sender and recipient, the reader, the answering signal, the alert sent. */
  detail: string;
}

export interface SignalReport {
  message: SignalMessage;
  /** The copy shown: the recipient's inbox copy when there is one, else the sender's outbox copy. */
  file: string;
  path: string;
  box: SignalBox;
  owner: string;
  archived: boolean;
  delivery: DeliveryStatus;
  /** The signal this one answers (`--reply-to`), if any. */
  replyTo: string | null;
  /** Oldest first. */
  history: SignalHistoryEvent[];
  facts: DeliveryFacts;
}

export interface ShowSignalOptions extends CallerOption {
  deadlines?: SignalDeadlines;
  now?: Date;
}

/** `fed signal show <id>`: the signal wherever it is (live or archived), its delivery state and its history. */
export async function showSignal(fed: Federation, id: string, options: ShowSignalOptions = {}): Promise<SignalReport> {
  if (!signalMessageSchema.shape.id.safeParse(id).success)
    throw new InvalidInputError(`expected a signal id (a UUID), got "${id}"; find it with: fed signal list`);
  const { backend } = fed;
  const registry = await backend.registry.read();
  const facts = await backend.delivery.all(id);
  const found = await findSignalById(backend, registry, id, facts.sent);
  if (!found) {
    throw new RefusedError(
      'UNKNOWN_SIGNAL',
      `no signal with id ${id} in any box of this federation (live or archived); find it with: fed signal list --all`,
    );
  }
  // A team sees the signals it sent or was sent, and no one else's.
  const { from, to } = found.entry.message;
  if (options.caller !== undefined && ![from, to].includes(callerIdOf(registry, options.caller)))
    assertOwnParty(registry, options.caller, found.owner, 'signal');
  const now = options.now ?? fed.now();
  const delivery = await new DeliveryInspector(backend, registry, deadlineTable(options.deadlines), now).status(
    found.entry,
    found.box,
  );
  const { message } = found.entry;
  return {
    message,
    file: found.entry.file,
    path: found.entry.path,
    box: found.box,
    owner: found.owner,
    archived: found.archived,
    delivery,
    replyTo: facts.sent?.replyTo ?? null,
    history: history(message, facts, delivery),
    facts,
  };
}

function history(message: SignalMessage, facts: DeliveryFacts, delivery: DeliveryStatus): SignalHistoryEvent[] {
  const events: SignalHistoryEvent[] = [
    { at: message.timestamp, event: 'sent', detail: `from ${message.from} to ${message.to}` },
  ];
  if (facts.read) events.push({ at: facts.read.readAt, event: 'read', detail: `by ${facts.read.by}` });
  if (message.acknowledged_at)
    events.push({ at: message.acknowledged_at, event: 'acknowledged', detail: `by ${message.to}` });
  if (facts.answered)
    events.push({
      at: facts.answered.answeredAt,
      event: 'answered',
      detail: `by signal ${facts.answered.replyId} from ${facts.answered.from}`,
    });
  if (delivery.state === 'expired' && delivery.dueAt)
    events.push({ at: delivery.dueAt, event: 'expired', detail: 'its deadline passed' });
  if (facts.escalated)
    events.push({
      at: facts.escalated.escalatedAt,
      event: 'escalated',
      detail: `alert ${facts.escalated.alertId} to meta`,
    });
  if (facts.undeliverable) {
    const alert = facts.undeliverable.alertId ? `; alert ${facts.undeliverable.alertId} to ${message.from}` : '';
    events.push({
      at: facts.undeliverable.reportedAt,
      event: 'undeliverable',
      detail: `${facts.undeliverable.reason}${alert}`,
    });
  }
  return events.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}
