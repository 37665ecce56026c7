import type { FederationBackend } from '../../ports/federation-backend.js';
import type { SignalEntry, SignalInbox } from '../../ports/signal-transport.js';
import type { SignalBox, SignalMessage } from '../../core/schema/signal.js';
import type { SignalParty } from '../../core/resolve-party.js';
import { findTeam, statusOf } from '../../core/find-team.js';
import { META } from '../../core/schema/common.js';
import type { DeliveryFactName } from '../../core/schema/delivery.js';
import type { Registry } from '../../core/schema/registry.js';
import type { DeadlineTable } from '../../core/deadlines.js';
import { deliveryStatus, type DeliveryStatus } from './delivery-state.js';

/** Why `party` can no longer take signals, or undefined when it can. */
export function recipientGoneReason(registry: Registry, party: string): string | undefined {
  if (party === META) return undefined;
  const entry = findTeam(registry, party);
  if (!entry) return `recipient "${party}" is no longer registered`;
  return statusOf(entry) === 'archived' ? `recipient "${party}" is archived` : undefined;
}

/** The facts a delivery state is derived from (besides the ack). */
const STATE_FACTS: readonly DeliveryFactName[] = ['answered', 'read', 'undeliverable'];

/** What a learned signal without any state fact has: one set for them all, not one each. */
const NO_FACTS: ReadonlySet<DeliveryFactName> = new Set();

/**
 * Delivery states of many signals at one moment, from the backend's delivery facts (looked up by
 * existence: for many signals at once after `learn`, else one by one) and, for an outbox copy, the
 * acknowledgment of the recipient's inbox copy, found through the transport (straight to it: the outbox
 * copy carries what the inbox copy was named for).
 */
export class DeliveryInspector {
  private readonly inboxes = new Map<string, { inbox: SignalInbox; party: SignalParty } | undefined>();
  /** Which state facts the signals `learn` was given have (lower-case ids; a learned id missing here has none). */
  private readonly learned = new Map<string, ReadonlySet<DeliveryFactName>>();
  private readonly gone = new Map<string, string | undefined>();

  constructor(
    private readonly backend: FederationBackend,
    private readonly registry: Registry,
    private readonly deadlines: DeadlineTable,
    private readonly now: Date,
  ) {}

  /**
   * Look up the state facts of these signals in one go, for `status` of each of them; again later (e.g.
   * after read marks were recorded) to see what changed since.
   */
  async learn(entries: readonly SignalEntry[]): Promise<void> {
    const ids = entries.map((entry) => entry.message.id.toLowerCase());
    const recorded = await this.backend.delivery.recorded(ids, STATE_FACTS);
    for (const id of ids) this.learned.set(id, recorded.get(id) ?? NO_FACTS);
  }

  async status(entry: SignalEntry, box: SignalBox): Promise<DeliveryStatus> {
    const known = this.knownStatus(entry, box);
    if (known) return known;
    const { message } = entry;
    const copy = box === 'inbox' ? undefined : await this.recipientCopy(entry);
    const acknowledged = box === 'inbox' ? message.acknowledged === true : copy === 'acknowledged';
    // A team registered under the recipient's id that holds no copy is not the one it was sent to.
    const missing =
      copy === 'missing'
        ? `recipient "${message.to}" holds no copy of it, live or archived: it was sent to an earlier team "${message.to}" since removed, or its copy was deleted`
        : undefined;
    const learned = this.learned.get(message.id.toLowerCase());
    const [answered, read, undeliverable] = learned
      ? // Learned: no lookup left but the reason of an undeliverable signal.
        [
          learned.has('answered'),
          learned.has('read'),
          learned.has('undeliverable') ? await this.undeliverableReason(message.id) : undefined,
        ]
      : await Promise.all([
          this.backend.delivery.has(message.id, 'answered'),
          this.backend.delivery.has(message.id, 'read'),
          this.backend.delivery
            .has(message.id, 'undeliverable')
            .then((has) => (has ? this.undeliverableReason(message.id) : undefined)),
        ]);
    return this.derive(message, acknowledged, answered, read, undeliverable, missing);
  }

  /**
   * The status `status` gives, when no lookup is left to make: an inbox copy whose facts were learned and
   * that is not undeliverable. Undefined otherwise. Listing a large box asks this of every signal, so it
   * is synchronous: a promise per signal cost more than deriving its state.
   */
  knownStatus(entry: SignalEntry, box: SignalBox): DeliveryStatus | undefined {
    const { message } = entry;
    const known = box === 'inbox' ? this.learned.get(message.id.toLowerCase()) : undefined;
    if (known === undefined || known.has('undeliverable')) return undefined;
    return this.derive(message, message.acknowledged === true, known.has('answered'), known.has('read'), undefined);
  }

  private derive(
    message: SignalMessage,
    acknowledged: boolean,
    answered: boolean,
    read: boolean,
    undeliverable: string | undefined,
    missing?: string,
  ): DeliveryStatus {
    return deliveryStatus(
      // Only what the state is derived from: a copy of each message was a tenth of listing a large box.
      { type: message.type, timestamp: message.timestamp, acknowledged },
      { answered, read, undeliverable },
      { now: this.now, deadlines: this.deadlines, recipientGone: this.recipientGone(message.to) ?? missing },
    );
  }

  private async undeliverableReason(id: string): Promise<string | undefined> {
    return (await this.backend.delivery.get(id, 'undeliverable'))?.reason;
  }

  /** Looked up once per recipient: a box's signals mostly share one. */
  private recipientGone(party: string): string | undefined {
    if (!this.gone.has(party)) this.gone.set(party, recipientGoneReason(this.registry, party));
    return this.gone.get(party);
  }

  /**
   * A sent signal's inbox copy: acknowledged (or was, before it was archived with its ack), not, or
   * missing — neither live nor archived in the inbox of the team registered under the recipient's id.
   * Undefined when there is no such inbox to look in, or no archive to be sure it is not there.
   */
  private async recipientCopy(sent: SignalEntry): Promise<'acknowledged' | 'unacknowledged' | 'missing' | undefined> {
    const recipient = this.inboxOf(sent.message.to);
    if (recipient === undefined) return undefined;
    const [live] = await recipient.inbox.find(sent.message.id, sent.message);
    if (live) return live.message.acknowledged === true ? 'acknowledged' : 'unacknowledged';
    // An archived inbox copy is under the outbox copy's handle (the name it was sent as).
    const { archive } = this.backend.signals;
    if (!archive.supported) return undefined;
    const archived = await archive.of(recipient.party).lookup('inbox', sent.file, sent.message.id);
    if (!archived) return 'missing';
    return archived.message.acknowledged === true ? 'acknowledged' : 'unacknowledged';
  }

  /** One inbox per recipient, kept: an adapter reads again only what changed. */
  private inboxOf(id: string): { inbox: SignalInbox; party: SignalParty } | undefined {
    if (!this.inboxes.has(id)) {
      const entry = id === META ? undefined : findTeam(this.registry, id);
      const party = { id, entry };
      this.inboxes.set(id, id === META || entry ? { inbox: this.backend.signals.inbox(party), party } : undefined);
    }
    return this.inboxes.get(id);
  }
}
