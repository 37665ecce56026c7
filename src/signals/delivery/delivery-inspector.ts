import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findTeam, statusOf } from '../../registry/find-team.js';
import { META } from '../../schema/common.js';
import type { Registry } from '../../schema/registry.js';
import { archiveDirectoryOf } from '../archive/box-archive.js';
import type { SignalBox } from '../parse-signal-file.js';
import type { SignalEntry } from '../read-signals.js';
import { resolveSignalWorkspace } from '../resolve-workspace.js';
import { ackFileName } from '../signal-file-name.js';
import type { DeadlineTable } from './deadlines.js';
import type { DeliveryFactStore } from './delivery-fact-store.js';
import { deliveryStatus, type DeliveryStatus } from './delivery-state.js';

/** Why `party` can no longer take signals, or undefined when it can. */
export function recipientGoneReason(registry: Registry, party: string): string | undefined {
  if (party === META) return undefined;
  const entry = findTeam(registry, party);
  if (!entry) return `recipient "${party}" is no longer registered`;
  return statusOf(entry) === 'archived' ? `recipient "${party}" is archived` : undefined;
}

/**
 * Delivery states of many signals at one moment: facts are looked up by existence (a few stats per
 * signal), and an outbox copy takes its acknowledgment from the recipient's inbox, where the ack is.
 */
export class DeliveryInspector {
  private readonly inboxes = new Map<string, string | undefined>();

  constructor(
    private readonly root: string,
    private readonly registry: Registry,
    private readonly facts: DeliveryFactStore,
    private readonly deadlines: DeadlineTable,
    private readonly now: Date,
  ) {}

  status(entry: SignalEntry, box: SignalBox): DeliveryStatus {
    const { message } = entry;
    const acknowledged = box === 'inbox' ? message.acknowledged === true : this.acknowledgedInRecipientInbox(message.to, entry.file);
    return deliveryStatus(
      { ...message, acknowledged },
      {
        answered: this.facts.has(message.id, 'answered'),
        read: this.facts.has(message.id, 'read'),
        undeliverable: this.facts.has(message.id, 'undeliverable') ? this.facts.get(message.id, 'undeliverable')?.reason : undefined,
      },
      { now: this.now, deadlines: this.deadlines, recipientGone: recipientGoneReason(this.registry, message.to) },
    );
  }

  /** A sent signal's inbox copy has its name (or had, before it was archived with its ack). */
  private acknowledgedInRecipientInbox(recipient: string, file: string): boolean {
    const inbox = this.inboxOf(recipient);
    if (inbox === undefined) return false;
    const ack = ackFileName(file);
    return existsSync(join(inbox, ack)) || existsSync(join(archiveDirectoryOf(inbox), ack));
  }

  private inboxOf(party: string): string | undefined {
    if (!this.inboxes.has(party)) {
      let inbox: string | undefined;
      try {
        inbox = resolveSignalWorkspace(this.root, party, { allowArchived: true, registry: this.registry }).inbox;
      } catch {
        inbox = undefined;
      }
      this.inboxes.set(party, inbox);
    }
    return this.inboxes.get(party);
  }
}
