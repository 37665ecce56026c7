import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { InvalidInputError } from '../../../core/errors.js';
import type { Federation } from '../../../engine/context.js';
import { markSignalsRead } from '../../../engine/delivery/read-marks.js';
import { listSignals, type ListedSignal } from '../../../engine/messaging/list-signals.js';
import { registerFedTool } from '../fed-tool.js';
import { inboxOutputFields } from '../inbox-output.js';
import type { TeamToolContext } from '../team-tools.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** Which signals fed_inbox shows: the ones not read yet, or every one not acknowledged yet. */
const INBOX_VIEWS = ['unread', 'unacknowledged'] as const;

export const inboxInput = z.strictObject({
  cursor: z
    .string()
    .optional()
    .describe('the `next` of the previous fed_inbox result, to read the signals after those it returned'),
  limit: z.int().min(1).max(MAX_LIMIT).optional().describe(`how many signals at most (default ${DEFAULT_LIMIT})`),
  show: z
    .enum(INBOX_VIEWS)
    .optional()
    .describe('unread (default): signals not read yet; unacknowledged: every signal not acknowledged yet'),
});

const inboxOutput = z.looseObject({
  ...inboxOutputFields,
  next: z.string().nullable().describe('pass it as `cursor` for the signals after these; null: no more'),
});

/**
 * `fed_inbox`: the team's inbox, oldest first, a page at a time, through the same listing as `fed signal
 * list`; the signals it returns are marked read (the `read` delivery state), as `fed signal watch` does.
 */
export function registerInbox(server: McpServer, context: TeamToolContext, onRead: () => void): void {
  registerFedTool(
    server,
    'fed_inbox',
    {
      description:
        'Read your inbox: signals sent to your team (directives, questions, reports, alerts), oldest first, with ' +
        'their ids and bodies. The signals returned are marked read. When `next` is set there are more: pass it ' +
        'as `cursor`. Acknowledge a signal with fed_ack once you have acted on it; answer a question with ' +
        'fed_send (type report, replyTo its id).',
      input: inboxInput,
      output: inboxOutput,
    },
    async (args) => {
      const { fed, teamId } = context;
      const show = args.show ?? 'unread';
      const listing = await listSignals(
        fed,
        { team: teamId, box: 'inbox', unacknowledged: true },
        { deadlines: fed.config.signalDeadlines },
      );
      const shown = show === 'unread' ? await unread(fed, listing.signals) : listing.signals;
      const after = args.cursor === undefined ? shown : afterCursor(shown, args.cursor);
      const limit = args.limit ?? DEFAULT_LIMIT;
      const page = after.slice(0, limit);
      await markSignalsRead(
        fed.backend.delivery,
        teamId,
        page.map((s) => s.message),
        fed.now(),
      );
      onRead();
      const last = page.at(-1);
      return {
        signals: page.map(({ message, delivery }) => ({
          id: message.id,
          type: message.type,
          from: message.from,
          subject: message.subject,
          body: message.body,
          timestamp: message.timestamp,
          state: delivery.state,
        })),
        next: after.length > page.length && last ? cursorOf(last) : null,
        invalid: listing.invalid.map((i) => ({ file: i.file, reason: i.reason })),
      };
    },
  );
}

/** The signals without a read mark (an overdue one is `expired` whether it was read or not). */
async function unread(fed: Federation, signals: readonly ListedSignal[]): Promise<ListedSignal[]> {
  const read = await fed.backend.delivery.recorded(
    signals.map((s) => s.message.id),
    ['read'],
  );
  return signals.filter((s) => !read.has(s.message.id.toLowerCase()));
}

/** A cursor names the last signal returned: its time and id (a signal acknowledged since is no longer listed). */
function cursorOf(signal: ListedSignal): string {
  return `${signal.message.timestamp}~${signal.message.id}`;
}

function afterCursor(signals: readonly ListedSignal[], cursor: string): ListedSignal[] {
  const [timestamp, id] = cursor.split('~');
  if (!timestamp || !id || Number.isNaN(Date.parse(timestamp)))
    throw new InvalidInputError(
      `cursor "${cursor}" is not one fed_inbox returned; pass the \`next\` of its last result`,
    );
  const index = signals.findIndex((s) => s.message.id === id);
  if (index >= 0) return signals.slice(index + 1);
  return signals.filter((s) => s.message.timestamp > timestamp);
}
