import type { SignalParty } from '../../core/resolve-party.js';
import type { SignalBox, SignalMessage, SignalType } from '../../core/schema/signal.js';
import type { SignalEntry, SignalTransport } from '../../ports/signal-transport.js';

/** The first page asked for; each next one is twice as large (up to MAX_PAGE). */
const FIRST_PAGE = 4;
const MAX_PAGE = 256;

/**
 * The newest signal of a party's box of one of `types`, sent at or after `since` (an ISO timestamp), that
 * `wanted` accepts; undefined when there is none. Read newest first, a page at a time, where the transport can
 * (SignalTransport.newest; file-signal-v1 knows a signal's second from its name): a long-lived box holds its
 * whole history, and a caller that asks at every change of a team (`fed serve` judging a complete team
 * for a new mission) would otherwise read all of it each time. The reading stops at the first signal
 * older than `since`. Without `newest`, the box is listed.
 */
export async function newestSince(
  transport: SignalTransport,
  party: SignalParty,
  box: SignalBox,
  since: string,
  types: readonly SignalType[],
  wanted: (message: SignalMessage) => boolean = () => true,
): Promise<SignalEntry | undefined> {
  const from = Date.parse(since);
  // A caller's mistake, said as one: nothing would be older than it, and the whole box would be read.
  if (Number.isNaN(from)) throw new TypeError(`newestSince: "${since}" is not a timestamp`);
  const accepted = (message: SignalMessage) => types.includes(message.type) && wanted(message);
  if (!transport.newest) {
    const source = box === 'inbox' ? transport.inbox(party) : transport.outbox(party);
    const { signals } = await source.list();
    return signals
      .filter(({ message }) => Date.parse(message.timestamp) >= from && accepted(message))
      .reduce<SignalEntry | undefined>(
        (newest, entry) => (!newest || newer(entry, newest) ? entry : newest),
        undefined,
      );
  }
  let before: { timestamp: string; id: string } | undefined;
  for (let limit = FIRST_PAGE; ; limit = Math.min(limit * 2, MAX_PAGE)) {
    const page = await transport.newest([{ party, box }], { ...(before && { before }), limit, types });
    for (const { entry } of page) {
      if (Date.parse(entry.message.timestamp) < from) return undefined;
      if (accepted(entry.message)) return entry;
    }
    if (page.length < limit) return undefined;
    const { timestamp, id } = page.at(-1)!.entry.message;
    before = { timestamp, id };
  }
}

/** The order `newest` pages in: timestamp, then id. */
function newer(a: SignalEntry, b: SignalEntry): boolean {
  const at = Date.parse(a.message.timestamp) - Date.parse(b.message.timestamp);
  return at !== 0 ? at > 0 : a.message.id > b.message.id;
}
