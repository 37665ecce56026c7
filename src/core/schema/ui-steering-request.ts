import { z } from 'zod';
import { nonEmptyString, teamIdSchema } from './common.js';
import { agentLimitsSchema, teamAgentConfigSchema } from './config.js';
import { PLACEMENT_TYPES } from './registry.js';
import { scheduleIdSchema } from './schedule.js';
import { oneLineSubjectSchema } from './signal.js';

/**
 * The dashboard's steering forms (`fed serve --ui`, api-types.ts's routes): what each POST takes. Unknown
 * fields are refused, and what the library checks only after it began writing is checked here first, so
 * a refused request writes nothing. A form leaves out a field the person left empty.
 */

/** A folder of the codebase, relative and inside it (`src/api`): the area a team's mission is about. */
const areaSchema = z
  .string()
  .regex(/^[^/\\][^\\]*$/, { error: 'expected a folder relative to the codebase, like "src/api"' })
  .refine((path) => !path.split('/').includes('..'), { error: 'expected a folder inside the codebase, without ".."' });

/** POST /api/teams: onboard a team and send it its mission, as `fed team onboard` then a directive from meta do. */
export const uiOnboardRequestSchema = z
  .strictObject({
    team: teamIdSchema,
    archetype: teamIdSchema.optional(),
    placement: z.enum(PLACEMENT_TYPES).optional(),
    /** The folder the mission is about: the subject and body default to a plan's mission for it. */
    area: areaSchema.optional(),
    subject: oneLineSubjectSchema.optional(),
    body: z.string().optional(),
    /** The team's own agent and limits (`fed team onboard --agent --preset --model --max-*`), as its config entry takes them. */
    agent: teamAgentConfigSchema.shape.command,
    preset: teamAgentConfigSchema.shape.preset,
    model: teamAgentConfigSchema.shape.model,
    maxTurns: agentLimitsSchema.shape.maxTurns,
    maxCostUsd: agentLimitsSchema.shape.maxCostUsd,
    maxMinutes: agentLimitsSchema.shape.maxMinutes,
  })
  .refine((request) => request.area !== undefined || request.subject !== undefined, {
    error: 'a mission needs a subject (what to do, one line), or an area of the codebase to document',
    path: ['subject'],
  });
export type UiOnboardRequest = z.output<typeof uiOnboardRequestSchema>;

/** POST /api/directives: a directive from meta to a team, as `fed signal send --type directive` sends it. */
export const uiDirectiveRequestSchema = z.strictObject({
  to: teamIdSchema,
  subject: oneLineSubjectSchema,
  body: z.string().optional(),
  /** A UUID the page picks once per directive: a retried POST sends it once. */
  id: z.uuid().optional(),
});
export type UiDirectiveRequest = z.output<typeof uiDirectiveRequestSchema>;

/** The most teams a plan asked for from the page may have (`?teams=`, `teams`): a bound, not a goal. */
export const MAX_PLAN_TEAMS = 1000;

/** POST /api/plan/apply: `fed plan [--teams n] --apply`. */
export const uiApplyPlanRequestSchema = z.strictObject({
  teams: z.number().int({ error: 'expected a whole number of teams' }).min(1).max(MAX_PLAN_TEAMS).optional(),
});
export type UiApplyPlanRequest = z.output<typeof uiApplyPlanRequestSchema>;

/**
 * POST /api/schedules: `fed schedule add` — exactly one trigger, the time zone for a cron one only (the
 * cron expression itself is read whole by the cron library when it is added).
 */
export const uiAddScheduleRequestSchema = z
  .strictObject({
    to: teamIdSchema,
    subject: oneLineSubjectSchema,
    body: z.string().optional(),
    cron: nonEmptyString.optional(),
    timezone: nonEmptyString.optional(),
    onRef: nonEmptyString.optional(),
    id: scheduleIdSchema.optional(),
  })
  .refine((request) => (request.cron === undefined) !== (request.onRef === undefined), {
    error: 'give exactly one trigger: a cron expression (like "0 3 * * 1-5") or a git ref (like main)',
    path: ['cron'],
  })
  .refine((request) => request.timezone === undefined || request.cron !== undefined, {
    error: 'a time zone applies to a cron expression only',
    path: ['timezone'],
  });
export type UiAddScheduleRequest = z.output<typeof uiAddScheduleRequestSchema>;

/** POST /api/schedules/remove: `fed schedule remove <id>`. */
export const uiRemoveScheduleRequestSchema = z.strictObject({ id: scheduleIdSchema });
export type UiRemoveScheduleRequest = z.output<typeof uiRemoveScheduleRequestSchema>;
