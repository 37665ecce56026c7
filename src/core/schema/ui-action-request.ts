import { z } from 'zod';
import { nonEmptyString } from './common.js';
import { UI_ACTIONS } from './federation-journal.js';

/** The actions that use each optional field; any other action given one is refused. */
const TAKEN_BY: Record<'text' | 'signalId' | 'id', readonly (typeof UI_ACTIONS)[number][]> = {
  text: ['answer', 'request-changes'],
  signalId: ['answer'],
  id: ['answer'],
};

/**
 * A dashboard button's request (`POST /api/actions`, the wire's ActionRequest): which action, on which
 * team or question, with what text. Unknown fields are refused, and so is a field the action does not take
 * (`text` with pause, say), rather than dropped unsaid. `id`: a UUID the page picks once per answer, so a
 * retried POST sends the same report once (sendSignal dedupes by id).
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
    const problem = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
    if (request.action === 'answer') {
      if (!request.signalId) problem('signalId', 'answer needs signalId: the question to answer');
      if (!request.text?.trim()) problem('text', 'answer needs text: the answer to send');
    } else if (!request.team) problem('team', `${request.action} needs team: the team to act on`);
    if (request.action === 'request-changes' && !request.text?.trim())
      problem('text', 'request-changes needs text: the changes to make, e.g. "rename the handler"');
    for (const field of ['text', 'signalId', 'id'] as const)
      if (request[field] !== undefined && !TAKEN_BY[field].includes(request.action))
        problem(
          field,
          `${request.action} takes no ${field}: only ${TAKEN_BY[field].join(' and ')} ${TAKEN_BY[field].length > 1 ? 'do' : 'does'}; leave it out`,
        );
  });
export type UiActionRequest = z.output<typeof uiActionRequestSchema>;
