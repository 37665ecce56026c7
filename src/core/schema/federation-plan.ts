import { z } from 'zod';
import { isoTimestamp, nonEmptyString } from './common.js';

/**
 * The plan the federation applied (`.fed/plan.json`, layout's `plan`): what `fed plan --apply` proposed
 * and onboarded, recorded after it applied so the dashboard's Federation page shows it. Rewritten whole by
 * each apply; the last one wins.
 */
const planArea = z.object({
  /** Folder relative to the codebase, with `/`; `.` for a root package. */
  path: nonEmptyString,
  name: z.string(),
  files: z.number().int().nonnegative(),
  lines: z.number().int().nonnegative(),
});

export const appliedPlanSchema = z.object({
  appliedAt: isoTimestamp,
  codebase: z.string(),
  project: z.string(),
  basis: z.enum(['packages', 'folders']),
  teams: z.array(
    z.object({
      team: nonEmptyString,
      areas: z.array(planArea),
      files: z.number().int().nonnegative(),
      lines: z.number().int().nonnegative(),
      mission: z.object({ subject: z.string(), body: z.string() }),
    }),
  ),
});
export type AppliedPlan = z.output<typeof appliedPlanSchema>;
