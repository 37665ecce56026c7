import { z } from 'zod';
import { builtOnFirstUse } from '../../../core/schema/common.js';
import { CODING_WORK_STATES, type CodingContext } from '../../../../machines/coding.types.js';
import { commonContext } from '../../../core/schema/lifecycle-context.js';

/** The persisted context of a coding lifecycle. */
export const codingContextSchema: z.ZodType<CodingContext> = builtOnFirstUse(() =>
  z.strictObject({
    ...commonContext(CODING_WORK_STATES),
    tasks: z.array(z.string()),
    commit: z.string().nullable(),
    lastTestRun: z.strictObject({ passed: z.number(), failed: z.number() }).nullable(),
    reworks: z.number().int().nonnegative(),
    pullRequest: z.string().nullable(),
    lastReview: z
      .strictObject({
        outcome: z.enum(['changes-requested', 'approved']),
        reviewer: z.string().nullable(),
        comments: z.array(z.string()),
      })
      .nullable(),
    approvedCommit: z.string().nullable(),
    mergeCommit: z.string().nullable(),
  }),
);
