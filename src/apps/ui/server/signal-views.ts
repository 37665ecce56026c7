import { InvalidInputError } from '../../../core/errors.js';
import { fileSystemErrorFor } from '../../../infra/fs/fs-errors.js';
import { deadlineTable } from '../../../core/deadlines.js';
import { META } from '../../../core/schema/common.js';
import type { Registry } from '../../../core/schema/registry.js';
import type { DeliveryState } from '../../../core/schema/delivery.js';
import { SIGNAL_TYPES, signalMessageSchema, type SignalBox, type SignalMessage } from '../../../core/schema/signal.js';
import { findTeam } from '../../../core/find-team.js';
import type { Federation } from '../../../engine/context.js';
import { signalsSince } from '../../../engine/messaging/newest-since.js';
import { DeliveryInspector } from '../../../engine/delivery/delivery-inspector.js';
import { showSignal, type SignalReport } from '../../../engine/delivery/show-signal.js';
import { everyParty, type SignalParty } from '../../../core/resolve-party.js';
import type { SignalEntry } from '../../../ports/signal-transport.js';
import type { SignalRow, SignalsView, SignalThreadView } from '../api-types.js';

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 500;

/** One signal of a box, located: which box holds the copy whose delivery state is asked. */
/** A party's box. */
interface PartyBox {
  party: SignalParty;
  box: SignalBox;
}

interface Located {
  entry: SignalEntry;
  box: SignalBox;
}

/**
 * The federation's signals, newest first, a page at a time (`before`: the cursor of the last row seen):
 * the inboxes, or with `team` that team's inbox and outbox. The transport reads the page alone where it
 * can (SignalTransport.newest); delivery states are computed for the page only — with a hundred thousand
 * signals a page never holds them all, nor reads the others' facts.
 */
export async function signalsView(
  fed: Federation,
  /** `limit`: a number, or the text of a query string (`?limit=50`). */
  query: { before?: string; limit?: number | string; team?: string },
): Promise<SignalsView> {
  const given = query.limit ?? DEFAULT_PAGE;
  const limit = typeof given === 'string' && /^\d+$/.test(given) ? Number(given) : given;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
    throw new InvalidInputError(
      `limit: expected a whole number from 1 to ${MAX_PAGE}, got ${typeof given === 'string' ? JSON.stringify(given) : given}`,
    );
  const before = parseCursor(query.before);
  const { backend } = fed;
  const registry = await backend.registry.read();
  // One more than the page tells whether there is a next page.
  const newest = async (boxes: readonly PartyBox[]) =>
    backend.signals.newest
      ? (await backend.signals.newest(boxes, { before, limit: limit + 1 })).map(({ entry, box }): Located => ({
          entry,
          box: boxes[box]!.box,
        }))
      : await listedNewest(fed, boxes, query.before, limit + 1);
  const kept = query.team
    ? await newest(await teamBoxes(fed, registry, query.team))
    : await withoutUnlistable(fed, everyInbox(registry), newest);
  const page = kept.slice(0, limit);
  const signals = await signalRows(fed, registry, page);
  const last = page.at(-1);
  const more = kept.length > limit;
  return { signals, next: more && last ? cursorOf(last.entry) : null };
}

/** A signal, its delivery history and every signal that replied to it. */
export async function signalThreadView(fed: Federation, id: string): Promise<SignalThreadView> {
  const report = await showSignal(fed, id, { deadlines: fed.config.signalDeadlines });
  return {
    signal: { ...reportRow(report), body: report.message.body },
    history: report.history.map((event) => ({ at: event.at, what: `${event.event}: ${event.detail}` })),
    replies: await repliesTo(fed, report),
  };
}

/**
 * The signals sent with `--reply-to` this one, oldest first — a question may be answered more than once,
 * and only the first is its `answered` fact. Only a signal's recipient replies to it (record-send.ts), after
 * it: the replies are in the recipient's live outbox, read newest first back to the signal's send, each
 * checked against its sent fact, where the reply link lives. The first reply is found wherever it is, an
 * archived one too; a later one `fed signal archive` moved out of the outbox is not listed.
 */
async function repliesTo(fed: Federation, report: SignalReport): Promise<SignalRow[]> {
  const { id, to, timestamp } = report.message;
  const registry = await fed.backend.registry.read();
  const replier = to === META ? undefined : findTeam(registry, to);
  const located: Located[] = [];
  // A team removed since has no outbox left to read.
  if (to === META || replier)
    for await (const entry of signalsSince(
      fed.backend.signals,
      { id: to, entry: replier },
      'outbox',
      timestamp,
      SIGNAL_TYPES,
    )) {
      const sent = await fed.backend.delivery.get(entry.message.id, 'sent');
      if (sent?.replyTo?.toLowerCase() === id.toLowerCase()) located.push({ entry, box: 'outbox' });
    }
  const rows = await signalRows(fed, registry, located);
  const first = report.facts.answered?.replyId.toLowerCase();
  if (first && !rows.some((row) => row.id.toLowerCase() === first))
    rows.push(reportRow(await showSignal(fed, first, { deadlines: fed.config.signalDeadlines })));
  return rows.sort((a, b) => compareCursor(`${a.sentAt}|${a.id}`, `${b.sentAt}|${b.id}`));
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
      return signalRow(message, (await inspector.status(entry, box)).state, sent?.replyTo ?? null);
    }),
  );
}

function reportRow(report: SignalReport): SignalRow {
  return signalRow(report.message, report.delivery.state, report.replyTo);
}

function signalRow(message: SignalMessage, state: DeliveryState, replyTo: string | null): SignalRow {
  const { id, type, from, to, subject, timestamp: sentAt } = message;
  return { id, type, from, to, subject, sentAt, state, replyTo };
}

/**
 * `read` of the boxes, without those fed cannot list for a reason of their party's alone (a file where the
 * inbox belongs, no permission to read it: the board says so, that team unhealthy) — one team's inbox must
 * not take the federation's signals page down. Each such box is found by the error naming its path.
 */
async function withoutUnlistable<T>(
  fed: Federation,
  boxes: readonly PartyBox[],
  read: (boxes: readonly PartyBox[]) => Promise<T>,
): Promise<T> {
  const left = [...boxes];
  for (;;) {
    try {
      return await read(left);
    } catch (error) {
      const at = fileSystemErrorFor(error)?.refusal ? (error as NodeJS.ErrnoException).path : undefined;
      const unlistable = left.findIndex(({ party }) => fed.backend.signals.inbox(party).location === at);
      if (unlistable < 0) throw error;
      left.splice(unlistable, 1);
    }
  }
}

/** Every inbox holds each signal once (an outbox copy is a record of the same send): the federation's signals. */
function everyInbox(registry: Registry): PartyBox[] {
  return everyParty(registry.teams).map((party) => ({ party, box: 'inbox' }));
}

async function teamBoxes(fed: Federation, registry: Registry, name: string): Promise<PartyBox[]> {
  const entry = name === META ? undefined : await fed.team(name, registry);
  const party = { id: entry?.domainId ?? META, entry };
  return [
    { party, box: 'inbox' },
    { party, box: 'outbox' },
  ];
}

/**
 * The page from a transport that cannot read a page alone: each box in turn, read and let go, only the
 * page's candidates kept — a federation of a hundred thousand signals is never held at once.
 */
async function listedNewest(
  fed: Federation,
  boxes: readonly PartyBox[],
  before: string | undefined,
  limit: number,
): Promise<Located[]> {
  const newestFirst = (a: Located, b: Located) => compareCursor(cursorOf(b.entry), cursorOf(a.entry));
  const older = (s: Located) => before === undefined || compareCursor(cursorOf(s.entry), before) < 0;
  const kept: Located[] = [];
  for (const { party, box } of boxes) {
    const { signals } = await (
      box === 'inbox' ? fed.backend.signals.inbox(party) : fed.backend.signals.outbox(party)
    ).list();
    kept.push(...signals.map((entry): Located => ({ entry, box })).filter(older));
    if (kept.length > 4 * limit) kept.sort(newestFirst).splice(limit);
  }
  return kept.sort(newestFirst).slice(0, limit);
}

/** A row's place in time order: its send time, then its id (two signals of one instant keep an order). */
function cursorOf(entry: SignalEntry): string {
  return `${entry.message.timestamp}|${entry.message.id}`;
}

/**
 * `before` as a page's `next` gives it (cursorOf). Anything else is refused, naming the form: a time that
 * does not parse would compare as NaN — no signal before it, an empty page that reads as "no signals".
 */
function parseCursor(cursor: string | undefined): { timestamp: string; id: string } | undefined {
  if (cursor === undefined) return undefined;
  const [timestamp = '', id = '', ...rest] = cursor.split('|');
  const { timestamp: time, id: signalId } = signalMessageSchema.shape;
  if (rest.length > 0 || !time.safeParse(timestamp).success || !signalId.safeParse(id).success)
    throw new InvalidInputError(
      `before: expected the \`next\` of the page before, <sent time (ISO 8601)>|<signal id>, got ${JSON.stringify(cursor)}`,
    );
  return { timestamp, id };
}

/** Time, then id (compared as the transports compare them: by code unit). */
function compareCursor(a: string, b: string): number {
  const [atA = '', idA = ''] = a.split('|');
  const [atB = '', idB = ''] = b.split('|');
  return Date.parse(atA) - Date.parse(atB) || (idA === idB ? 0 : idA < idB ? -1 : 1);
}
