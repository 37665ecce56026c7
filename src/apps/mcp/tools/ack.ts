import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { FedError } from '../../../core/errors.js';
import { signalMessageSchema } from '../../../core/schema/signal.js';
import { acknowledgeSignal } from '../../../engine/messaging/acknowledge-signals.js';
import { registerFedTool } from '../fed-tool.js';
import type { TeamToolContext } from '../team-tools.js';

export const ackInput = z.strictObject({
  ids: z.array(signalMessageSchema.shape.id).min(1).max(100).describe('ids of signals in your inbox (from fed_inbox)'),
});

const ackOutput = z.looseObject({
  acknowledged: z.array(
    z.looseObject({ id: z.string(), acknowledged_at: z.string().nullable(), alreadyAcknowledged: z.boolean() }),
  ),
  warnings: z
    .array(z.string())
    .optional()
    .describe('what fed reported besides, such as an effect of your lifecycle retried at its next write'),
});

/** `fed_ack`: acknowledge signals of the team's inbox, as `fed signal ack` does (applied first, then the ack). */
export function registerAck(server: McpServer, context: TeamToolContext): void {
  registerFedTool(
    server,
    'fed_ack',
    {
      description:
        'Acknowledge signals of your inbox by id, once you have acted on them: fed applies each to your lifecycle ' +
        '(as it would anyway) and records the acknowledgment. Acknowledging again keeps the first time.',
      input: ackInput,
      output: ackOutput,
    },
    async ({ ids }) => {
      const done: { id: string; acknowledged_at: string | null; alreadyAcknowledged: boolean }[] = [];
      const warnings: string[] = [];
      // Each id's apply retries what the lifecycle owes: a failure repeated is said once.
      const onWarning = (warning: string) => void (warnings.includes(warning) || warnings.push(warning));
      for (const id of ids) {
        try {
          for (const ack of await acknowledgeSignal(context.fed, context.teamId, id, { onWarning }))
            done.push({
              id: ack.signal.message.id,
              acknowledged_at: ack.signal.message.acknowledged_at ?? null,
              alreadyAcknowledged: ack.alreadyAcknowledged,
            });
        } catch (error) {
          // Say what was done before the refusal: acknowledgments are not undone.
          if (error instanceof FedError && done.length > 0)
            error.message = `${error.message} (acknowledged before it: ${done.map((d) => d.id).join(', ')})`;
          throw error;
        }
      }
      return { acknowledged: done, ...(warnings.length > 0 ? { warnings } : {}) };
    },
  );
}
