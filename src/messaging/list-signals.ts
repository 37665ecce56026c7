import { openBackend } from '../backend/open-backend.js';
import { InvalidInputError } from '../errors.js';
import type { FederationBackend } from '../ports/federation-backend.js';
import { SIGNAL_BOXES, type InvalidSignalFile, type SignalBox, type SignalEntry } from '../ports/signal-transport.js';
import { findTeam } from '../registry/find-team.js';
import { META } from '../schema/common.js';
import { SIGNAL_TYPES } from '../schema/signal.js';
import { resolveParty } from './resolve-party.js';

export interface ListSignalsQuery {
  /** Whose box: a team id (or domain) or `meta` (default). */
  team?: string;
  /** Default `inbox`. */
  box?: SignalBox;
  /** Only signals without an acknowledgment (inbox only: acks live beside the signals in the recipient's inbox). */
  unacknowledged?: boolean;
  type?: string;
  /** Only signals from this sender (team id or domain, or `meta`). */
  from?: string;
}

export interface SignalListing {
  team: string;
  box: SignalBox;
  /** Where the box is, to show to a person. */
  dir: string;
  /** Sorted by timestamp. */
  signals: SignalEntry[];
  /** Every entry of the box that is not a valid signal, with the reason — filters never hide these. */
  invalid: InvalidSignalFile[];
}

/** `fed signal list`: the valid signals of one box, filtered, and every invalid entry of it. */
export async function listSignals(root: string, query: ListSignalsQuery = {}, backend: FederationBackend = openBackend(root)): Promise<SignalListing> {
  const box = query.box ?? 'inbox';
  if (!SIGNAL_BOXES.includes(box)) throw new InvalidInputError(`--box: expected one of ${SIGNAL_BOXES.join(', ')}, got "${String(box)}"`);
  if (query.unacknowledged && box !== 'inbox') {
    throw new InvalidInputError("--unacked applies to an inbox: acknowledgments are written beside the signal in the recipient's inbox");
  }
  if (query.type !== undefined && !(SIGNAL_TYPES as readonly string[]).includes(query.type)) {
    throw new InvalidInputError(`--type: expected one of ${SIGNAL_TYPES.join(', ')}, got "${query.type}"`);
  }
  const registry = await backend.registry.read();
  const party = resolveParty(registry, query.team ?? META, { role: 'team (--team)', allowArchived: true });
  const from = query.from === undefined ? undefined : (findTeam(registry, query.from)?.domainId ?? query.from);
  const opened = box === 'inbox' ? backend.signals.inbox(party) : backend.signals.outbox(party);
  const { signals, invalid } = await opened.list();
  const wanted = signals.filter(
    ({ message }) =>
      (!query.unacknowledged || !message.acknowledged) &&
      (query.type === undefined || message.type === query.type) &&
      (from === undefined || message.from === from),
  );
  return { team: party.id, box, dir: opened.location, signals: wanted, invalid };
}
