import { z } from 'zod';
import { builtOnFirstUse } from '../../../core/schema/common.js';
import { CONSULTANT_WORK_STATES, type ConsultantContext } from '../../../../machines/consultant.types.js';
import { commonContext, signalSeenSchema } from '../../../core/schema/lifecycle-context.js';

const question = signalSeenSchema.extend({ from: z.string().nullable() });

/** The persisted context of a consultant lifecycle. */
export const consultantContextSchema: z.ZodType<ConsultantContext> = builtOnFirstUse(() =>
  z.strictObject({
    ...commonContext(CONSULTANT_WORK_STATES),
    filesIndexed: z.number().int().positive().nullable(),
    current: question.nullable(),
    queue: z.array(question),
    lastFeedback: signalSeenSchema.nullable(),
    answered: z.number().int().nonnegative(),
    lastAnswer: z.strictObject({ questionId: z.string(), reportId: z.string().nullable() }).nullable(),
  }),
);
