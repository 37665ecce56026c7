import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { FedError, InvalidInputError } from '../../../core/errors.js';
import { META } from '../../../core/schema/common.js';
import { signalMessageSchema, signalTypeSchema } from '../../../core/schema/signal.js';
import type { Federation } from '../../../engine/context.js';
import { acknowledgeAll, acknowledgeSignal } from '../../../engine/messaging/acknowledge-signals.js';
import { markSignalsRead } from '../../../engine/delivery/read-marks.js';
import { listSignals } from '../../../engine/messaging/list-signals.js';
import { sendSignal } from '../../../engine/messaging/send-signal.js';
import type { AckResult } from '../../../ports/signal-transport.js';
import { notifyChannels } from '../../needs-you/notify-channels.js';
import { tellSentSignal } from '../../needs-you/tell-sent-signal.js';
import { registerFedTool } from '../fed-tool.js';
import { inboxOutputFields } from '../inbox-output.js';
import { sendInput } from '../tools/send.js';

const SIGNAL_ID = signalMessageSchema.shape.id;
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

const sendOutput = z.looseObject({
  id: z.string(),
  to: z.string(),
  delivered: z.boolean(),
  replyTo: z.string().nullable(),
  note: z.string().optional(),
  warnings: z.array(z.string()),
});

const inboxOutput = z.looseObject({
  ...inboxOutputFields,
  more: z.int().describe('how many signals are left past the limit'),
});

const ackOutput = z.looseObject({
  acknowledged: z.array(
    z.looseObject({
      id: z.string(),
      subject: z.string(),
      acknowledged_at: z.string().nullable(),
      alreadyAcknowledged: z.boolean(),
    }),
  ),
  invalid: z.array(z.unknown()).optional(),
});

/** `fed_send`, `fed_inbox`, `fed_ack`: meta's signals, as `fed signal send|list|ack` run at the federation root. */
export function registerSignalTools(server: McpServer, fed: Federation, onRead: () => void): void {
  registerFedTool(
    server,
    'fed_send',
    {
      description:
        'Send a signal from meta to a team: a directive (a mission, or what to do next: a team whose lifecycle ' +
        'takes directives acts on it at its next launch), a question, a report or an alert. To answer a ' +
        "team's question, send a report with replyTo set to the question's id: the question becomes answered.",
      // The team server's arguments: a person's client and an agent send signals alike.
      input: sendInput,
      output: sendOutput,
    },
    async ({ to, type, subject, body, replyTo, id }) => {
      // Meta is the sender: this server is never a team's (fed mcp --meta refuses to run as one).
      const result = await sendSignal(fed, { to, type, subject, body, replyTo, id, from: META });
      const warnings = [...result.warnings];
      // As `fed signal send`: a signal that waits on a person is told at once, when someone listens.
      if (result.delivered && notifyChannels(fed.config).length > 0)
        warnings.push(...(await tellSentSignal(fed, result.message)));
      return {
        id: result.message.id,
        to: result.message.to,
        delivered: result.delivered,
        replyTo: replyTo?.toLowerCase() ?? null,
        ...(result.delivered ? {} : { note: 'already delivered: nothing new was written to the inbox' }),
        warnings,
      };
    },
  );

  registerFedTool(
    server,
    'fed_inbox',
    {
      description:
        "Meta's inbox, oldest first: the signals teams sent meta (reports, questions, alerts) that are not " +
        'acknowledged yet (all: true for every live one), each with its body, delivery state and the reply that ' +
        'answered it. Listing them marks them read; fed_ack acknowledges them.',
      input: z.strictObject({
        all: z.boolean().optional().describe('acknowledged signals too (default: only unacknowledged ones)'),
        type: signalTypeSchema.optional().describe('only signals of this type'),
        from: z.string().min(1).optional().describe('only signals from this team'),
        limit: z
          .int()
          .min(1)
          .max(MAX_LIMIT)
          .optional()
          .describe(
            `how many signals at most, oldest first (default ${DEFAULT_LIMIT}); \`more\` says how many are left`,
          ),
      }),
      output: inboxOutput,
    },
    async ({ all, type, from, limit = DEFAULT_LIMIT }) => {
      const listing = await listSignals(
        fed,
        { team: META, box: 'inbox', unacknowledged: !all, type, from },
        { deadlines: fed.config.signalDeadlines },
      );
      const page = listing.signals.slice(0, limit);
      // Read are the signals shown, not the ones past the limit; what arrived so far is no longer news.
      await markSignalsRead(
        fed.backend.delivery,
        META,
        page.map((s) => s.message),
        fed.now(),
      );
      onRead();
      return {
        signals: page.map(({ message, delivery, answeredBy }) => ({
          ...message,
          state: delivery.state,
          dueAt: delivery.dueAt,
          answeredBy,
        })),
        more: listing.signals.length - page.length,
        invalid: listing.invalid,
      };
    },
  );

  registerFedTool(
    server,
    'fed_ack',
    {
      description:
        "Acknowledge signals of meta's inbox by id (from fed_inbox), or all: true for every one not acknowledged " +
        'yet. An acknowledged signal is taken: it leaves fed_inbox and fed_needs_you, an unanswered question too ' +
        '(answer it with fed_send first). Acknowledging again keeps the first time.',
      input: z.strictObject({
        ids: z
          .array(SIGNAL_ID)
          .min(1)
          .max(MAX_LIMIT)
          .optional()
          .describe("ids of signals in meta's inbox (from fed_inbox)"),
        all: z.boolean().optional().describe('acknowledge every unacknowledged signal instead'),
      }),
      output: ackOutput,
    },
    async ({ ids, all }) => {
      if (ids === undefined && !all)
        throw new InvalidInputError('which signals? pass their ids, or all: true for every unacknowledged one');
      if (ids !== undefined && all) throw new InvalidInputError('pass either ids or all: true, not both');
      if (all) {
        const result = await acknowledgeAll(fed, META);
        return { acknowledged: result.acknowledged.map(ackLine), invalid: result.invalid };
      }
      const done: ReturnType<typeof ackLine>[] = [];
      for (const id of ids!) {
        try {
          done.push(...(await acknowledgeSignal(fed, META, id)).map(ackLine));
        } catch (error) {
          // Say what was done before the refusal: acknowledgments are not undone.
          if (error instanceof FedError && done.length > 0)
            error.message = `${error.message} (acknowledged before it: ${done.map((d) => d.id).join(', ')})`;
          throw error;
        }
      }
      return { acknowledged: done };
    },
  );
}

function ackLine(ack: AckResult) {
  return {
    id: ack.signal.message.id,
    subject: ack.signal.message.subject,
    acknowledged_at: ack.signal.message.acknowledged_at ?? null,
    alreadyAcknowledged: ack.alreadyAcknowledged,
  };
}
