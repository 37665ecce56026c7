import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { META } from '../../../core/schema/common.js';
import { oneLineSubjectSchema, signalMessageSchema } from '../../../core/schema/signal.js';
import { sendSignal } from '../../../engine/messaging/send-signal.js';
import { notifyChannels } from '../../needs-you/notify-channels.js';
import { registerFedTool } from '../fed-tool.js';
import type { TeamToolContext } from '../team-tools.js';

const fields = signalMessageSchema.shape;

/** No `from`: a team's server sends as its team only (strict, so a `from` is refused by name). */
export const sendInput = z.strictObject({
  to: fields.to.describe(`"${META}", or a team id`),
  type: fields.type.describe(
    'report (results, answers: with replyTo), question (to ask), alert (a problem), directive (meta to teams)',
  ),
  subject: oneLineSubjectSchema.describe('one line: what it is about'),
  body: fields.body.optional().describe('the whole message (default: empty)'),
  replyTo: fields.id.optional().describe('the id of the signal this one answers (a question from fed_inbox)'),
  id: fields.id
    .optional()
    .describe('a UUID you choose, so that repeating the same send after an error delivers it once'),
});

const sendOutput = z.looseObject({
  id: z.string(),
  from: z.string(),
  to: z.string(),
  type: z.string(),
  delivered: z.boolean().describe('false: a retry of a signal already delivered, nothing new written'),
  replyTo: z.string().nullable(),
  warnings: z.array(z.string()).optional(),
});

/** `fed_send`: a signal from this team, through the same send as `fed signal send` (its checks and facts). */
export function registerSend(server: McpServer, context: TeamToolContext): void {
  registerFedTool(
    server,
    'fed_send',
    {
      description:
        `Send a signal from your team to "${META}" or another team. To answer a question (a consultant's answer, ` +
        'a report on a directive), send type report with replyTo set to the id of the signal you answer. ' +
        'It is always sent as your team.',
      input: sendInput,
      output: sendOutput,
    },
    async (args) => {
      const { fed, teamId } = context;
      const result = await sendSignal(fed, { ...args, from: teamId }, { caller: teamId });
      const warnings = [...result.warnings];
      // A question or escalation to meta is told at once, as `fed signal send` does.
      if (result.delivered && notifyChannels(fed.config).length > 0) {
        const { tellSentSignal } = await import('../../needs-you/tell-sent-signal.js');
        warnings.push(...(await tellSentSignal(fed, result.message)));
      }
      return {
        id: result.message.id,
        from: result.message.from,
        to: result.message.to,
        type: result.message.type,
        delivered: result.delivered,
        replyTo: args.replyTo?.toLowerCase() ?? null,
        ...(warnings.length ? { warnings } : {}),
      };
    },
  );
}
