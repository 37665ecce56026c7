import { Cron } from 'croner';
import { z } from 'zod';
import { builtOnFirstUse, isoTimestamp, slugIdSchema, teamIdSchema } from './common.js';
import { describeValue } from './problems.js';
import { oneLineSubjectSchema } from './signal.js';

/**
 * A schedule in `federate.config.json` (`schedules: [...]`): a directive from meta to a team, sent by
 * `fed serve` on a cron expression (in a named time zone) or whenever a git ref of the codebase moves.
 * Each firing is a record of the federation journal (`fed log`), which is also how a restarted server
 * knows what already fired: a schedule that fell due while nothing served fires once, never once per tick.
 */

/** A schedule's id names it in `fed schedule remove` and in the journal: a slug, like a team's. */
export const scheduleIdSchema = slugIdSchema('a schedule id', 'nightly-docs');

/**
 * Five fields (minute hour day-of-month month day-of-week) or six (seconds first), of the characters cron
 * expressions use, or a nickname (`@daily`, `@hourly`, …). The cron library reads seven too (a year
 * last), which fed does not take.
 */
const CRON_SHAPE = /^(?:@[a-z]+|(?:[\d*?/,\-LW#A-Za-z]+\s+){4,5}[\d*?/,\-LW#A-Za-z]+)$/;

/**
 * A schedule's cron expression as `fed serve` fires it: read whole by the cron library (croner), in
 * `timezone` (default: the machine's). The one reading of a cron expression: the config's check
 * (cronSchema), `fed schedule add`, `fed schedule list` and the server all go through it.
 */
export function readCron(expression: string, timezone?: string): Cron {
  return new Cron(expression, { timezone, paused: true });
}

/** What is wrong with a cron expression, or undefined when the cron library reads it. */
function cronProblem(expression: string): string | undefined {
  if (!CRON_SHAPE.test(expression.trim()))
    return `expected a cron expression of 5 fields (minute hour day month weekday, like "0 3 * * 1-5"), 6 with seconds first (like "*/30 * * * * *") or a nickname like "@daily", got ${describeValue(expression)}`;
  try {
    readCron(expression);
  } catch (error) {
    return `expected a cron expression like "0 3 * * 1-5", got ${describeValue(expression)} (${(error as Error).message})`;
  }
  return undefined;
}

const cronSchema = () =>
  z.string().superRefine((value, context) => {
    const problem = cronProblem(value);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem, input: value });
  });

const timeZoneSchema = () =>
  z.string().refine(isTimeZone, {
    error: (issue) => `expected an IANA time zone like "Europe/Paris" or "UTC", got ${describeValue(issue.input)}`,
  });

/** A git ref of the codebase (a branch like `main`, or a full ref): fed reads it with `git rev-parse`. */
const gitRefSchema = () =>
  z.string().refine((ref) => /^[A-Za-z0-9._/-]+$/.test(ref) && !ref.startsWith('-') && !ref.includes('..'), {
    error: (issue) => `expected a git ref like "main", got ${describeValue(issue.input)}`,
  });

// Built on first use: the config is read by every command, and few federations have schedules.
export const scheduleSchema = builtOnFirstUse(() =>
  z
    .strictObject({
      id: scheduleIdSchema,
      /** The team the directive goes to. */
      to: teamIdSchema,
      subject: oneLineSubjectSchema,
      /** The directive's body (default: its subject). */
      body: z.string().optional(),
      /** Fire on this cron expression… */
      cron: cronSchema().optional(),
      /** …read in this time zone (default: the server's). */
      timezone: timeZoneSchema().optional(),
      /** …or whenever this git ref of the codebase moves to another commit. */
      onRef: gitRefSchema().optional(),
      /** When it was added: a cron tick after this that no server was there to fire is fired once at start. */
      since: isoTimestamp.optional(),
    })
    .refine((s) => (s.cron === undefined) !== (s.onRef === undefined), {
      error: 'expected exactly one trigger: "cron" (a cron expression) or "onRef" (a git ref)',
    })
    .refine((s) => s.timezone === undefined || s.cron !== undefined, {
      error: '"timezone" applies to a "cron" schedule only',
      path: ['timezone'],
    }),
);
export type Schedule = z.infer<typeof scheduleSchema>;

export const schedulesSchema = builtOnFirstUse(() =>
  z.array(scheduleSchema).superRefine((schedules, context) => {
    const seen = new Set<string>();
    schedules.forEach((schedule, index) => {
      if (seen.has(schedule.id))
        context.addIssue({
          code: 'custom',
          path: [index, 'id'],
          message: `schedule id "${schedule.id}" is used twice`,
        });
      seen.add(schedule.id);
    });
  }),
);

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
