import { refusedInCallerTerms, type CallerTerms } from '../../../core/caller-terms.js';
import { InvalidInputError } from '../../../core/errors.js';
import { META } from '../../../core/schema/common.js';
import { zodProblemText } from '../../../core/schema/problems.js';
import { uiActionRequestSchema, type UiActionRequest } from '../../../core/schema/ui-action-request.js';
import { setTeamStatus } from '../../../engine/actors/team-status-command.js';
import { decideReview } from '../../../engine/archetypes/coding/review.js';
import { mergeTeam } from '../../../engine/archetypes/coding/merge.js';
import type { Federation } from '../../../engine/context.js';
import { showSignal } from '../../../engine/delivery/show-signal.js';
import { journalQuietly, type FederationEvent } from '../../../engine/federation/federation-journal.js';
import { sendSignal } from '../../../engine/messaging/send-signal.js';
import { removeTeam } from '../../../engine/registry/remove-team.js';
import { notifyChannels } from '../../needs-you/notify-channels.js';
import { tellSentSignal } from '../../needs-you/tell-sent-signal.js';
import { retryTeam } from '../../run/team-retry.js';
import { archiveTeam } from '../../team-control/archive-team.js';
import {
  archivalMessage,
  mergeMessage,
  removalMessage,
  retryMessage,
  reviewDecisionMessage,
  statusChangeMessage,
} from '../../team-control/action-messages.js';
import type { ActionResult } from '../api-types.js';

/**
 * A dashboard button (`POST /api/actions`): the library operation its CLI command runs, with the same
 * refusals and the message that command prints, then an `action` record in the federation journal saying
 * it came from the dashboard. Input is checked whole before anything is done, so a refusal changes nothing.
 */
export async function runAction(fed: Federation, body: unknown): Promise<{ result: ActionResult; team: string }> {
  const request = parseRequest(body);
  const done = await perform(fed, request);
  // A repeated answer (the same id) or merge did nothing new: it was journaled when it was done.
  const warning = done.repeated
    ? undefined
    : await journalFromUi(fed, {
        action: request.action,
        team: done.team,
        ...(request.signalId ? { signalId: request.signalId } : {}),
      });
  return {
    result: { ok: true, message: warning ? `${done.message}\nwarning: ${warning}` : done.message },
    team: done.team,
  };
}

/** What an `action` record of the federation journal says of a decision taken on the dashboard. */
export type UiJournalEntry = Omit<Extract<FederationEvent, { kind: 'action' }>, 'kind' | 'source'>;

/** Journal a dashboard decision after its operation succeeded; a journal that cannot be appended is a warning. */
export function journalFromUi(fed: Federation, entry: UiJournalEntry): Promise<string | undefined> {
  return journalQuietly(fed.backend, { kind: 'action', source: 'ui', ...entry });
}

async function perform(
  fed: Federation,
  request: UiActionRequest,
): Promise<{ team: string; message: string; repeated?: boolean }> {
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
      // The page shows one message: what fed could not bring in of the agent's commits comes after it.
      return { team: decided.team, message: [reviewDecisionMessage(decided, approve), ...decided.warnings].join('\n') };
    }
    case 'merge': {
      const merged = await mergeTeam(fed, team);
      // A second click while the first merged: the first is the one journaled.
      return { team: merged.team, message: mergeMessage(merged), repeated: merged.alreadyMerged };
    }
    case 'retry': {
      const run = await retryTeam(fed, team, fed.config);
      return { team: run.team, message: retryMessage(run) };
    }
    case 'archive': {
      const archived = await archiveTeam(fed, team);
      const warnings = archived.warnings.map((warning) => `\nwarning: ${warning}`).join('');
      return { team: archived.team, message: `${archivalMessage(archived)}${warnings}` };
    }
    case 'remove': {
      const removed = await removeTeam(fed, team);
      return { team: removed.team, message: removalMessage(removed) };
    }
    case 'answer':
      return answer(fed, request.signalId!, request.text!, request);
  }
}

/**
 * Answer a question to meta as `fed signal send --type report --reply-to <question>` does from the root:
 * a report from meta to whoever asked; the question becomes answered. Sent twice with one `id`, once.
 */
async function answer(
  fed: Federation,
  questionId: string,
  text: string,
  { id, team }: Pick<UiActionRequest, 'id' | 'team'>,
): Promise<{ team: string; message: string; repeated: boolean }> {
  const { message: question } = await showSignal(fed, questionId);
  if (question.type !== 'question' || question.to !== META)
    throw new InvalidInputError(
      `signal ${questionId} is a ${question.type} to ${question.to}, not a question to ${META}: only meta's questions are answered here`,
    );
  // The answer goes to whoever asked: a team named beside the question must be that one (by id or domain).
  if (team !== undefined && team !== question.from && (await fed.team(team)).domainId !== question.from)
    throw new InvalidInputError(
      `question ${questionId} was asked by team ${question.from}, not ${team}: name the team that asked, or leave team out`,
    );
  // A refusal names the action's fields: the question is its signalId; whom it goes to, no field of it.
  const result = await refusedInCallerTerms(ANSWER_TERMS, () =>
    sendSignal(fed, {
      from: META,
      to: question.from,
      type: 'report',
      subject: `Re: ${question.subject}`,
      body: text,
      replyTo: questionId,
      // The page's id for this answer: a retried POST finds the report already sent and sends nothing new.
      ...(id ? { id } : {}),
    }),
  );
  const warnings = [...result.warnings];
  if (result.delivered && notifyChannels(fed.config).length > 0)
    warnings.push(...(await tellSentSignal(fed, result.message)));
  return {
    team: question.from,
    message: [result.inboxPath, ...warnings.map((warning) => `warning: ${warning}`)].join('\n'),
    repeated: !result.delivered,
  };
}

/** What the answer action calls the inputs of its send (core/caller-terms.ts). */
const ANSWER_TERMS: CallerTerms = { replyTo: 'signalId', body: 'text', id: 'id' };

/** The request as the page sends it (ActionRequest, declared in core/schema), refused as bad input when it is not one. */
function parseRequest(body: unknown): UiActionRequest {
  const parsed = uiActionRequestSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) throw new InvalidInputError(`the action request is not valid: ${zodProblemText(parsed.error)}`);
  return parsed.data;
}
