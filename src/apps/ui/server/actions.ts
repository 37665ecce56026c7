import { InvalidInputError } from '../../../core/errors.js';
import { META } from '../../../core/schema/common.js';
import { UI_ACTIONS, type UiAction } from '../../../core/schema/federation-journal.js';
import { setTeamStatus } from '../../../engine/actors/team-status-command.js';
import { decideReview } from '../../../engine/archetypes/coding/review.js';
import { mergeTeam } from '../../../engine/archetypes/coding/merge.js';
import type { Federation } from '../../../engine/context.js';
import { showSignal } from '../../../engine/delivery/show-signal.js';
import { journalQuietly } from '../../../engine/federation/federation-journal.js';
import { sendSignal } from '../../../engine/messaging/send-signal.js';
import { removeTeam } from '../../../engine/registry/remove-team.js';
import { notifyChannels } from '../../needs-you/notify-channels.js';
import { tellSentSignal } from '../../needs-you/tell-sent-signal.js';
import { retryTeam } from '../../run/team-retry.js';
import {
  mergeMessage,
  removalMessage,
  retryMessage,
  reviewDecisionMessage,
  statusChangeMessage,
} from '../../team-control/action-messages.js';
import type { ActionRequest, ActionResult } from '../api-types.js';

/**
 * A dashboard button (`POST /api/actions`): the library operation its CLI command runs, with the same
 * refusals and the message that command prints, then an `action` record in the federation journal saying
 * it came from the dashboard. Input is checked whole before anything is done, so a refusal changes nothing.
 */
export async function runAction(fed: Federation, body: unknown): Promise<{ result: ActionResult; team: string }> {
  const request = parseRequest(body);
  const done = await perform(fed, request);
  const warning = await journalQuietly(fed.backend, {
    kind: 'action',
    source: 'ui',
    action: request.action,
    team: done.team,
    ...(request.signalId ? { signalId: request.signalId } : {}),
  });
  return {
    result: { ok: true, message: warning ? `${done.message}\nwarning: ${warning}` : done.message },
    team: done.team,
  };
}

async function perform(fed: Federation, request: ActionRequest): Promise<{ team: string; message: string }> {
  const team = request.team!;
  switch (request.action) {
    case 'pause':
    case 'resume': {
      const change = await setTeamStatus(fed, team, { type: request.action === 'pause' ? 'PAUSE' : 'RESUME' });
      const id = change.team.domainId;
      return { team: id, message: statusChangeMessage({ team: id, from: change.from, to: change.to }) };
    }
    case 'approve':
    case 'request-changes': {
      const approve = request.action === 'approve';
      const decided = await decideReview(fed, team, approve ? { approve } : { approve, changes: request.text! });
      return { team: decided.team, message: reviewDecisionMessage(decided, approve) };
    }
    case 'merge': {
      const merged = await mergeTeam(fed, team);
      return { team: merged.team, message: mergeMessage(merged) };
    }
    case 'retry': {
      const run = await retryTeam(fed, team, fed.config);
      return { team: run.team, message: retryMessage(run) };
    }
    case 'remove': {
      const removed = await removeTeam(fed, team);
      return { team: removed.team, message: removalMessage(removed) };
    }
    case 'answer':
      return answer(fed, request.signalId!, request.text!);
  }
}

/**
 * Answer a question to meta as `fed signal send --type report --reply-to <question>` does from the root:
 * a report from meta to whoever asked; the question becomes answered.
 */
async function answer(fed: Federation, questionId: string, text: string): Promise<{ team: string; message: string }> {
  const { message: question } = await showSignal(fed, questionId);
  if (question.type !== 'question' || question.to !== META)
    throw new InvalidInputError(
      `signal ${questionId} is a ${question.type} to ${question.to}, not a question to ${META}: only meta's questions are answered here`,
    );
  const result = await sendSignal(fed, {
    from: META,
    to: question.from,
    type: 'report',
    subject: `Re: ${question.subject}`,
    body: text,
    replyTo: questionId,
  });
  const warnings = [...result.warnings];
  if (result.delivered && notifyChannels(fed.config).length > 0)
    warnings.push(...(await tellSentSignal(fed, result.message)));
  return {
    team: question.from,
    message: [result.inboxPath, ...warnings.map((warning) => `warning: ${warning}`)].join('\n'),
  };
}

/** The request as the page sends it (ActionRequest), refused as bad input when it is not one. */
function parseRequest(body: unknown): ActionRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new InvalidInputError('expected a JSON object {action, team?, signalId?, text?}');
  const { action, team, signalId, text, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length)
    throw new InvalidInputError(`unknown field(s) ${unknown.join(', ')}; expected action, team, signalId, text`);
  if (!(UI_ACTIONS as readonly unknown[]).includes(action))
    throw new InvalidInputError(`action: expected one of ${UI_ACTIONS.join(', ')}, got ${JSON.stringify(action)}`);
  for (const [name, value] of Object.entries({ team, signalId, text }))
    if (value !== undefined && typeof value !== 'string')
      throw new InvalidInputError(`${name}: expected a string, got ${JSON.stringify(value)}`);
  const request = { action, team, signalId, text } as ActionRequest;
  if (request.action === 'answer') {
    if (!request.signalId) throw new InvalidInputError('answer needs signalId: the question to answer');
    if (!request.text?.trim()) throw new InvalidInputError('answer needs text: the answer to send');
  } else if (!request.team) throw new InvalidInputError(`${request.action as UiAction} needs team: the team to act on`);
  if (request.action === 'request-changes' && !request.text?.trim())
    throw new InvalidInputError('request-changes needs text: the changes to make, e.g. "rename the handler"');
  return request;
}
