import { InvalidInputError } from '../../../core/errors.js';
import { deadlineTable } from '../../../core/deadlines.js';
import { META } from '../../../core/schema/common.js';
import type { Registry } from '../../../core/schema/registry.js';
import type { SignalBox } from '../../../core/schema/signal.js';
import type { Federation } from '../../../engine/context.js';
import { DeliveryInspector } from '../../../engine/delivery/delivery-inspector.js';
import { showSignal, type SignalReport } from '../../../engine/delivery/show-signal.js';
import type { SignalEntry } from '../../../ports/signal-transport.js';
import type { SignalRow, SignalsView, SignalThreadView } from '../api-types.js';

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 500;

/** One signal of a box, located: which box holds the copy whose delivery state is asked. */
interface Located {
  entry: SignalEntry;
  box: SignalBox;
}

/**
 * The federation's signals, newest first, a page at a time (`before`: the cursor of the last row seen).
 * Every inbox holds each signal once (an outbox copy is a record of the same send), so the inboxes are
 * the federation's signals; with `team`, that team's inbox and outbox. The boxes are read one at a time
 * and only the page's candidates kept, and delivery states are computed for the page only: with a hundred
 * thousand signals a page never holds them all, nor reads the others' facts.
 */
export async function signalsView(
  fed: Federation,
  query: { before?: string; limit?: number; team?: string },
): Promise<SignalsView> {
  const limit = query.limit ?? DEFAULT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
    throw new InvalidInputError(`limit: expected a whole number from 1 to ${MAX_PAGE}, got ${query.limit}`);
  const { backend } = fed;
  const registry = await backend.registry.read();
  const newestFirst = (a: Located, b: Located) => compareCursor(cursorOf(b.entry), cursorOf(a.entry));
  const older = (s: Located) => query.before === undefined || compareCursor(cursorOf(s.entry), query.before) < 0;
  // One more than the page tells whether there is a next page.
  const kept: Located[] = [];
  const boxes = query.team ? teamBoxes(fed, registry, query.team) : everyInbox(fed, registry);
  for await (const box of boxes) {
    kept.push(...box.filter(older));
    if (kept.length > 4 * (limit + 1)) kept.sort(newestFirst).splice(limit + 1);
  }
  kept.sort(newestFirst);
  const page = kept.slice(0, limit);
  const signals = await signalRows(fed, registry, page);
  const last = page.at(-1);
  const more = kept.length > limit;
  return { signals, next: more && last ? cursorOf(last.entry) : null };
}

/** A signal, its delivery history and the signal that answered it. */
export async function signalThreadView(fed: Federation, id: string): Promise<SignalThreadView> {
  const report = await showSignal(fed, id, { deadlines: fed.config.signalDeadlines });
  const answeredBy = report.facts.answered?.replyId;
  const replies = answeredBy
    ? [reportRow(await showSignal(fed, answeredBy, { deadlines: fed.config.signalDeadlines }))]
    : [];
  return {
    signal: { ...reportRow(report), body: report.message.body },
    history: report.history.map((event) => ({ at: event.at, what: `${event.event}: ${event.detail}` })),
    replies,
  };
}

/** The rows of signals already read from their boxes, with their delivery states. */
export async function signalRows(
  fed: Federation,
  registry: Registry,
  located: readonly Located[],
): Promise<SignalRow[]> {
  const inspector = new DeliveryInspector(fed.backend, registry, deadlineTable(fed.config.signalDeadlines), fed.now());
  await inspector.learn(located.map((s) => s.entry));
  return Promise.all(
    located.map(async ({ entry, box }): Promise<SignalRow> => {
      const { message } = entry;
      // The reply link is the send's fact: the message itself does not carry it.
      const sent = await fed.backend.delivery.get(message.id, 'sent');
      return {
        id: message.id,
        type: message.type,
        from: message.from,
        to: message.to,
        subject: message.subject,
        sentAt: message.timestamp,
        state: (await inspector.status(entry, box)).state,
        replyTo: sent?.replyTo ?? null,
      };
    }),
  );
}

function reportRow(report: SignalReport): SignalRow {
  const { message } = report;
  return {
    id: message.id,
    type: message.type,
    from: message.from,
    to: message.to,
    subject: message.subject,
    sentAt: message.timestamp,
    state: report.delivery.state,
    replyTo: report.replyTo,
  };
}

/**
 * Each inbox in turn, read and let go: the page keeps only its candidates, so a federation of a hundred
 * thousand signals is never held at once.
 */
async function* everyInbox(fed: Federation, registry: Registry): AsyncGenerator<Located[]> {
  const parties = [{ id: META, entry: undefined }, ...registry.teams.map((t) => ({ id: t.domainId, entry: t }))];
  for (const party of parties) {
    const { signals } = await fed.backend.signals.inbox(party).list();
    yield signals.map((entry): Located => ({ entry, box: 'inbox' }));
  }
}

async function* teamBoxes(fed: Federation, registry: Registry, name: string): AsyncGenerator<Located[]> {
  const entry = name === META ? undefined : await fed.team(name, registry);
  const party = { id: entry?.domainId ?? META, entry };
  yield (await fed.backend.signals.inbox(party).list()).signals.map((e): Located => ({ entry: e, box: 'inbox' }));
  yield (await fed.backend.signals.outbox(party).list()).signals.map((e): Located => ({ entry: e, box: 'outbox' }));
}

/** A row's place in time order: its send time, then its id (two signals of one instant keep an order). */
function cursorOf(entry: SignalEntry): string {
  return `${entry.message.timestamp}|${entry.message.id}`;
}

function compareCursor(a: string, b: string): number {
  const [atA = '', idA = ''] = a.split('|');
  const [atB = '', idB = ''] = b.split('|');
  return Date.parse(atA) - Date.parse(atB) || idA.localeCompare(idB);
}
