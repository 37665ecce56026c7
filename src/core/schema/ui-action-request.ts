import { z } from 'zod';
import { nonEmptyString } from './common.js';
import { UI_ACTIONS } from './federation-journal.js';

/**
 * A dashboard button's request (`POST /api/actions`, the wire's ActionRequest): which action, on which
 * team or question, with what text. Unknown fields are refused. `id`: a UUID the page picks once per
 * answer, so a retried POST sends the same report once (sendSignal dedupes by id).
 */
export const uiActionRequestSchema = z
  .strictObject({
    action: z.enum(UI_ACTIONS),
    team: nonEmptyString.optional(),
    signalId: nonEmptyString.optional(),
    text: z.string().optional(),
    id: z.uuid().optional(),
  })
  .superRefine((request, context) => {
    const missing = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
    if (request.action === 'answer') {
      if (!request.signalId) missing('signalId', 'answer needs signalId: the question to answer');
      if (!request.text?.trim()) missing('text', 'answer needs text: the answer to send');
    } else if (!request.team) missing('team', `${request.action} needs team: the team to act on`);
    if (request.action === 'request-changes' && !request.text?.trim())
      missing('text', 'request-changes needs text: the changes to make, e.g. "rename the handler"');
  });
export type UiActionRequest = z.output<typeof uiActionRequestSchema>;
