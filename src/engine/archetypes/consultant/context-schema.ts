import { z } from 'zod';
import { builtOnFirstUse } from '../../../core/schema/common.js';
import { CONSULTANT_WORK_STATES, type ConsultantContext } from '../../../../machines/consultant.types.js';
import {
  COMMON_CONTEXT_KEYS,
  commonContext,
  isSignalSeenOrNull,
  isWellFormedCommonContext,
  isWellFormedSignalSeen,
  signalSeenSchema,
} from '../../../core/schema/lifecycle-context.js';
import { hasOnlyKeys, isArrayOf, isCount, isString, isStringOrNull, orNull } from '../../../core/schema/quick-check.js';

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

const KEYS: ReadonlySet<string> = new Set([
  ...COMMON_CONTEXT_KEYS,
  'filesIndexed',
  'current',
  'queue',
  'lastFeedback',
  'answered',
  'lastAnswer',
]);
// From the schema's shape: a key added there fails the quick checks' test until it is checked (uncoveredKeys).
const QUESTION_KEYS: ReadonlySet<string> = new Set(Object.keys(question.shape));
const ANSWER_KEYS: ReadonlySet<string> = new Set(['questionId', 'reportId']);
const isQuestion = (value: unknown): boolean =>
  isWellFormedSignalSeen(value, QUESTION_KEYS, (seen) => isStringOrNull(seen.from));
const isQuestionOrNull = orNull(isQuestion);
const isAnswerOrNull = orNull(
  (value) => hasOnlyKeys(value, ANSWER_KEYS) && isString(value.questionId) && isStringOrNull(value.reportId),
);

/** The quick check of consultantContextSchema (see src/core/schema/quick-check.ts). */
export function isWellFormedConsultantContext(value: unknown): boolean {
  return (
    hasOnlyKeys(value, KEYS) &&
    isWellFormedCommonContext(value, CONSULTANT_WORK_STATES) &&
    (value.filesIndexed === null || isCount(value.filesIndexed, 1)) &&
    isQuestionOrNull(value.current) &&
    isArrayOf(value.queue, isQuestion) &&
    isSignalSeenOrNull(value.lastFeedback) &&
    isCount(value.answered, 0) &&
    isAnswerOrNull(value.lastAnswer)
  );
}
