import type { SignalParty } from '../../core/resolve-party.js';
import type { SignalBox, SignalMessage, SignalType } from '../../core/schema/signal.js';
import type { SignalEntry, SignalTransport } from '../../ports/signal-transport.js';

/** The first page asked for; each next one is twice as large (up to MAX_PAGE). */
const FIRST_PAGE = 4;
const MAX_PAGE = 256;

/**
 * The newest signal of a party's box of one of `types`, sent at or after `since` (an ISO timestamp), that
 * `wanted` accepts; undefined when there is none (signalsSince, stopped at the first accepted). A caller
 * that asks at every change of a team (`fed serve` judging a complete team for a new mission) so reads only
 * the box's newest signals, never its whole history.
 */
export async function newestSince(
  transport: SignalTransport,
  party: SignalParty,
  box: SignalBox,
  since: string,
  types: readonly SignalType[],
  wanted: (message: SignalMessage) => boolean = () => true,
): Promise<SignalEntry | undefined> {
  for await (const entry of signalsSince(transport, party, box, since, types)) if (wanted(entry.message)) return entry;
  return undefined;
}

/**
 * The signals of a party's box of one of `types` sent at or after `since` (an ISO timestamp), newest
 * first. Read a page at a time where the transport can (SignalTransport.newest; file-signal-v1 knows a
 * signal's second from its name): a long-lived box holds its whole history, and the reading stops at the
 * first signal older than `since` — a caller that stops early reads no further. Without `newest`, the box
 * is listed.
 */
export async function* signalsSince(
  transport: SignalTransport,
  party: SignalParty,
  box: SignalBox,
  since: string,
  types: readonly SignalType[],
): AsyncGenerator<SignalEntry> {
  const from = Date.parse(since);
  // A caller's mistake, said as one: nothing would be older than it, and the whole box would be read.
  if (Number.isNaN(from)) throw new TypeError(`signalsSince: "${since}" is not a timestamp`);
  const accepted = (entry: SignalEntry) =>
    Date.parse(entry.message.timestamp) >= from && types.includes(entry.message.type);
  if (!transport.newest) {
    const source = box === 'inbox' ? transport.inbox(party) : transport.outbox(party);
    const { signals } = await source.list();
    yield* signals.filter(accepted).sort((a, b) => (newer(a, b) ? -1 : 1));
    return;
  }
  let before: { timestamp: string; id: string } | undefined;
  for (let limit = FIRST_PAGE; ; limit = Math.min(limit * 2, MAX_PAGE)) {
    const page = await transport.newest([{ party, box }], { ...(before && { before }), limit, types });
    for (const { entry } of page) {
      if (Date.parse(entry.message.timestamp) < from) return;
      // An adapter may return other types than asked (SignalTransport.newest): they are skipped.
      if (accepted(entry)) yield entry;
    }
    if (page.length < limit) return;
    const { timestamp, id } = page.at(-1)!.entry.message;
    before = { timestamp, id };
  }
}

/** The order `newest` pages in: timestamp, then id. */
function newer(a: SignalEntry, b: SignalEntry): boolean {
  const at = Date.parse(a.message.timestamp) - Date.parse(b.message.timestamp);
  return at !== 0 ? at > 0 : a.message.id > b.message.id;
}
