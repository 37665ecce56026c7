import { statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import type { z } from 'zod';
import { refusedInCallerTerms, sameTerms } from '../../../core/caller-terms.js';
import { InvalidInputError } from '../../../core/errors.js';
import { META } from '../../../core/schema/common.js';
import type { UiSteeringAction } from '../../../core/schema/federation-journal.js';
import { zodProblemText } from '../../../core/schema/problems.js';
import {
  uiAddScheduleRequestSchema,
  uiApplyPlanRequestSchema,
  uiDirectiveRequestSchema,
  uiOnboardRequestSchema,
  uiRemoveScheduleRequestSchema,
} from '../../../core/schema/ui-steering-request.js';
import type { Federation } from '../../../engine/context.js';
import { sendSignal } from '../../../engine/messaging/send-signal.js';
import { projectNames } from '../../../engine/survey/survey.js';
import { applyPlan, areaMission, describeApplied, proposePlan } from '../../plan/plan.js';
import { onboardTeamWithAgent } from '../../team-control/onboard-with-agent.js';
import { addedMessage, addSchedule, removedMessage, removeSchedule } from '../../schedule/schedules.js';
import type { ActionResult } from '../api-types.js';
import { journalFromUi, type UiJournalEntry } from './actions.js';

/**
 * The dashboard's steering (`fed serve --ui`): each form is the library operation its CLI command runs —
 * onboarding with a mission, a directive, a plan applied, a schedule added or removed — with the same
 * refusals and the message that command prints, journaled as the dashboard's. The request is checked
 * whole before anything is written.
 */
interface Steered {
  message: string;
  /** What to journal (one record per team a plan touched). */
  journal: (UiJournalEntry & { action: UiSteeringAction })[];
}

type Steer = (fed: Federation, body: unknown) => Promise<Steered>;

/** The POST routes, by path. */
export const STEERING_ROUTES: Readonly<Record<string, Steer>> = {
  '/api/teams': onboardWithMission,
  '/api/directives': sendDirective,
  '/api/plan/apply': applyThePlan,
  '/api/schedules': addTheSchedule,
  '/api/schedules/remove': removeTheSchedule,
};

/** Run one steering route; returns the result and the teams it touched (their views are read again). */
export async function runSteering(
  fed: Federation,
  steer: Steer,
  body: unknown,
): Promise<{ result: ActionResult; teams: string[] }> {
  const done = await steer(fed, body);
  const warnings: string[] = [];
  for (const entry of done.journal) {
    const warning = await journalFromUi(fed, entry);
    if (warning) warnings.push(warning);
  }
  const message = [done.message, ...warnings.map((warning) => `warning: ${warning}`)].join('\n');
  return { result: { ok: true, message }, teams: [...new Set(done.journal.map((entry) => entry.team))] };
}

/**
 * `fed team onboard` (with the team's agent and limits, when given) then its mission, a directive from meta
 * (the subject and body given, or a plan's mission for the area). The area is checked before the team is
 * made, so a wrong one onboards nothing.
 */
async function onboardWithMission(fed: Federation, body: unknown): Promise<Steered> {
  const request = parse(uiOnboardRequestSchema, body, 'onboarding');
  const planned =
    request.area === undefined
      ? undefined
      : areaMission([checkArea(fed.root, request.area)], projectNames(fed.root)[0]!);
  // The schema holds a subject or an area.
  const subject = request.subject ?? planned!.subject;
  const entry = await onboardTeamWithAgent(
    fed,
    { domain: request.team, archetypeId: request.archetype, placementType: request.placement },
    {
      command: request.agent,
      preset: request.preset,
      model: request.model,
      limits: { maxTurns: request.maxTurns, maxCostUsd: request.maxCostUsd, maxMinutes: request.maxMinutes },
    },
    // A bad setting is said of the form's field that gave it.
    {
      settingNames: {
        command: 'agent',
        'limits.maxTurns': 'maxTurns',
        'limits.maxCostUsd': 'maxCostUsd',
        'limits.maxMinutes': 'maxMinutes',
      },
    },
  );
  const sent = await sendSignal(fed, {
    from: META,
    to: entry.domainId,
    type: 'directive',
    subject,
    body: request.body ?? planned?.body ?? '',
  });
  return {
    message: [
      `onboarded ${entry.domainId} (${entry.archetypeId}, ${entry.placementType}) at ${entry.location}`,
      `mission "${subject}" sent: ${sent.inboxPath}`,
      ...sent.warnings.map((warning) => `warning: ${warning}`),
    ].join('\n'),
    journal: [{ action: 'onboard', team: entry.domainId, signalId: sent.message.id }],
  };
}

/** `fed signal send --type directive --to <team>` from meta. Sent twice with one `id`, once. */
async function sendDirective(fed: Federation, body: unknown): Promise<Steered> {
  const request = parse(uiDirectiveRequestSchema, body, 'directive');
  // A refusal names the request's fields (`to`, `id`), not the CLI's options.
  const sent = await refusedInCallerTerms(sameTerms(Object.keys(uiDirectiveRequestSchema.shape)), () =>
    sendSignal(fed, {
      from: META,
      to: request.to,
      type: 'directive',
      subject: request.subject,
      body: request.body ?? '',
      ...(request.id ? { id: request.id } : {}),
    }),
  );
  return {
    message: [
      sent.delivered ? sent.inboxPath : `signal ${sent.message.id} was already delivered; nothing new was sent`,
      ...sent.warnings.map((warning) => `warning: ${warning}`),
    ].join('\n'),
    journal: sent.delivered ? [{ action: 'directive', team: sent.message.to, signalId: sent.message.id }] : [],
  };
}

/** `fed plan [--teams n] --apply`: the plan proposed now, applied (applying it again changes nothing). */
async function applyThePlan(fed: Federation, body: unknown): Promise<Steered> {
  const request = parse(uiApplyPlanRequestSchema, body, 'plan');
  const applied = await applyPlan(fed, proposePlan(fed, { teams: request.teams }));
  return {
    message: applied.map((team) => `${team.team}: ${describeApplied(team)}`).join('\n'),
    journal: applied.map((team) => ({ action: 'apply-plan', team: team.team })),
  };
}

/** `fed schedule add`: into federate.config.json, which a running `fed serve` follows. */
async function addTheSchedule(fed: Federation, body: unknown): Promise<Steered> {
  const request = parse(uiAddScheduleRequestSchema, body, 'schedule');
  const added = await addSchedule(fed, request);
  return {
    message: addedMessage(added),
    journal: [{ action: 'add-schedule', team: added.to, schedule: added.id }],
  };
}

/** `fed schedule remove <id>`. */
async function removeTheSchedule(fed: Federation, body: unknown): Promise<Steered> {
  const request = parse(uiRemoveScheduleRequestSchema, body, 'schedule removal');
  const removed = await removeSchedule(fed, request.id);
  return {
    message: removedMessage(removed),
    journal: [{ action: 'remove-schedule', team: removed.to, schedule: removed.id }],
  };
}

function parse<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body, { reportInput: true });
  if (!parsed.success) throw new InvalidInputError(`the ${what} request is not valid: ${zodProblemText(parsed.error)}`);
  return parsed.data;
}

/** An area must be a folder of the codebase (the federation root), like the areas `fed plan` finds. */
function checkArea(root: string, area: string): string {
  const path = resolve(root, area);
  if (!path.startsWith(root + sep) || !statSync(path, { throwIfNoEntry: false })?.isDirectory())
    throw new InvalidInputError(
      `area: ${root} has no folder "${area}"; give a folder of the codebase relative to it, like "src"`,
    );
  return area.replace(/\/+$/, '');
}
