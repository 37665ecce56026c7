import { InvalidInputError } from '../../core/errors.js';
import { type InvalidSignalFile, type SignalEntry, type SignalReadResult } from '../../ports/signal-transport.js';
import { SIGNAL_BOXES, type SignalBox } from '../../core/schema/signal.js';
import { findTeam } from '../../core/find-team.js';
import { META } from '../../core/schema/common.js';
import type { SignalDeadlines } from '../../core/schema/config.js';
import { DELIVERY_STATES, type DeliveryState } from '../../core/schema/delivery.js';
import { SIGNAL_TYPES } from '../../core/schema/signal.js';
import { deadlineTable } from '../../core/deadlines.js';
import { DeliveryInspector } from '../delivery/delivery-inspector.js';
import type { DeliveryStatus } from '../delivery/delivery-state.js';
import { markSignalsRead } from '../delivery/read-marks.js';
import { assertOwnParty, resolveParty, type CallerOption } from '../../core/resolve-party.js';
import type { Federation } from '../context.js';
import type { DeliveryFactStore } from '../../ports/delivery-fact-store.js';
import { idIntruders, repeatedIds } from '../delivery/id-intruders.js';

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
  /** Only signals in this delivery state. */
  state?: string;
  /** Archived signals too (`fed signal archive`; none on a transport that does not archive). */
  all?: boolean;
}

export interface ListSignalsOptions extends CallerOption {
  /**
   * Who is listing (a team id or domain, or `meta`). Listing one's own inbox is reading it: the live
   * signals shown that are not acknowledged yet are marked `read`.
   */
  reader?: string;
  /** `signalDeadlines` of the config (defaults apply for types left out). */
  deadlines?: SignalDeadlines;
  now?: Date;
}

export interface ListedSignal extends SignalEntry {
  /** In the box's archive (`fed signal archive`). */
  archived: boolean;
  delivery: DeliveryStatus;
  /** The id of the signal that answered this one (its first `--reply-to` reply), as `fed signal show` names it; null while unanswered. */
  answeredBy: string | null;
}

export interface SignalListing {
  team: string;
  box: SignalBox;
  /** Where the box is, to show to a person. */
  dir: string;
  /** Archived signals first (with --all), then the live ones; each oldest first. */
  signals: ListedSignal[];
  /** Every entry of the box that is not a valid signal, with the reason — filters never hide these. */
  invalid: InvalidSignalFile[];
}

/** `fed signal list`: the valid signals of one box, filtered, with their delivery states, and every invalid entry of it. */
export async function listSignals(
  fed: Federation,
  query: ListSignalsQuery = {},
  options: ListSignalsOptions = {},
): Promise<SignalListing> {
  const box = query.box ?? 'inbox';
  if (!SIGNAL_BOXES.includes(box))
    throw new InvalidInputError(`--box: expected one of ${SIGNAL_BOXES.join(', ')}, got "${String(box)}"`);
  if (query.unacknowledged && box !== 'inbox') {
    throw new InvalidInputError(
      "--unacked applies to an inbox: acknowledgments are written beside the signal in the recipient's inbox",
    );
  }
  if (query.type !== undefined && !(SIGNAL_TYPES as readonly string[]).includes(query.type)) {
    throw new InvalidInputError(`--type: expected one of ${SIGNAL_TYPES.join(', ')}, got "${query.type}"`);
  }
  if (query.state !== undefined && !(DELIVERY_STATES as readonly string[]).includes(query.state)) {
    throw new InvalidInputError(`--state: expected one of ${DELIVERY_STATES.join(', ')}, got "${query.state}"`);
  }
  const { backend } = fed;
  const registry = await backend.registry.read();
  const party = resolveParty(registry, query.team ?? META, { role: 'team (--team)', allowArchived: true });
  assertOwnParty(registry, options.caller, party.id, 'team (--team)');
  const from = query.from === undefined ? undefined : (findTeam(registry, query.from)?.domainId ?? query.from);
  const opened = box === 'inbox' ? backend.signals.inbox(party) : backend.signals.outbox(party);
  const live = await withIntrudersInvalid(backend.delivery, party.id, box, await opened.list());
  const { archive } = backend.signals;
  const archived = query.all && archive.supported ? await archive.of(party).list(box) : { signals: [], invalid: [] };
  const now = options.now ?? fed.now();
  const inspector = new DeliveryInspector(backend, registry, deadlineTable(options.deadlines), now);
  const matching = (entry: SignalEntry) =>
    !(query.unacknowledged && entry.message.acknowledged) &&
    (query.type === undefined || entry.message.type === query.type) &&
    (from === undefined || entry.message.from === from);
  const candidates = [archived.signals.filter(matching), live.signals.filter(matching)] as const;
  await inspector.learn([...candidates[0], ...candidates[1]]);
  const wanted: ListedSignal[] = [];
  for (const [signals, isArchived] of [
    [candidates[0], true],
    [candidates[1], false],
  ] as const) {
    for (const entry of signals) {
      const { message } = entry;
      const delivery = inspector.knownStatus(entry, box) ?? (await inspector.status(entry, box));
      if (query.state !== undefined && delivery.state !== (query.state as DeliveryState)) continue;
      // Only an answered signal has an answer to name: the others cost no extra read.
      const answeredBy =
        delivery.state === 'answered' ? ((await backend.delivery.get(message.id, 'answered'))?.replyId ?? null) : null;
      wanted.push({ ...entry, archived: isArchived, delivery, answeredBy });
    }
  }
  const reader =
    options.reader === undefined ? undefined : (findTeam(registry, options.reader)?.domainId ?? options.reader);
  if (box === 'inbox' && reader === party.id) {
    if (
      (await markSignalsRead(
        backend.delivery,
        reader,
        wanted.filter((s) => !s.archived).map((s) => s.message),
        now,
      )) > 0
    ) {
      const delivered = wanted.filter((signal) => signal.delivery.state === 'delivered');
      await inspector.learn(delivered);
      for (const signal of delivered) signal.delivery = await inspector.status(signal, box);
    }
  }
  return {
    team: party.id,
    box,
    dir: opened.location,
    signals: wanted,
    invalid: [...archived.invalid, ...live.invalid],
  };
}

/**
 * An inbox file that reuses the id of a signal fed delivered there is listed as invalid, with the reason
 * (the team actor quarantines it), not as a second copy of the signal. Only repeated ids are looked up.
 */
async function withIntrudersInvalid(
  facts: DeliveryFactStore,
  party: string,
  box: SignalBox,
  read: SignalReadResult,
): Promise<SignalReadResult> {
  const repeated = box === 'inbox' ? repeatedIds(read.signals) : [];
  if (repeated.length === 0) return read;
  const intruders = await idIntruders(facts, party, repeated);
  if (intruders.length === 0) return read;
  const out = new Set(intruders.map((i) => i.file));
  return { signals: read.signals.filter((s) => !out.has(s.file)), invalid: [...read.invalid, ...intruders] };
}
