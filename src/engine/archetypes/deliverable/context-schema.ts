import { z } from 'zod';
import { builtOnFirstUse } from '../../../core/schema/common.js';
import { DELIVERABLE_WORK_STATES, type DeliverableContext } from '../../../../machines/deliverable.types.js';
import { commonContext } from '../../../core/schema/lifecycle-context.js';

/** The persisted context of a deliverable lifecycle. */
export const deliverableContextSchema: z.ZodType<DeliverableContext> = builtOnFirstUse(() =>
  z.strictObject({
    ...commonContext(DELIVERABLE_WORK_STATES),
    sources: z.array(z.string()),
    filesRead: z.number().nullable(),
    insights: z.array(z.string()),
    document: z.strictObject({ path: z.string(), bytes: z.number() }).nullable(),
  }),
);
