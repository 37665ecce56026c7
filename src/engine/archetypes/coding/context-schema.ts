import { z } from 'zod';
import { builtOnFirstUse } from '../../../core/schema/common.js';
import { CODING_WORK_STATES, type CodingContext } from '../../../../machines/coding.types.js';
import {
  COMMON_CONTEXT_KEYS,
  commonContext,
  isWellFormedCommonContext,
} from '../../../core/schema/lifecycle-context.js';
import {
  hasOnlyKeys,
  isArrayOf,
  isCount,
  isFiniteNumber,
  isString,
  isStringOrNull,
  orNull,
} from '../../../core/schema/quick-check.js';

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

const KEYS: ReadonlySet<string> = new Set([
  ...COMMON_CONTEXT_KEYS,
  'tasks',
  'commit',
  'lastTestRun',
  'reworks',
  'pullRequest',
  'lastReview',
  'approvedCommit',
  'mergeCommit',
]);
const TEST_RUN_KEYS: ReadonlySet<string> = new Set(['passed', 'failed']);
const REVIEW_KEYS: ReadonlySet<string> = new Set(['outcome', 'reviewer', 'comments']);
const REVIEW_OUTCOMES: readonly unknown[] = ['changes-requested', 'approved'];
const isTestRunOrNull = orNull(
  (value) => hasOnlyKeys(value, TEST_RUN_KEYS) && isFiniteNumber(value.passed) && isFiniteNumber(value.failed),
);
const isReviewOrNull = orNull(
  (value) =>
    hasOnlyKeys(value, REVIEW_KEYS) &&
    REVIEW_OUTCOMES.includes(value.outcome) &&
    isStringOrNull(value.reviewer) &&
    isArrayOf(value.comments, isString),
);

/** The quick check of codingContextSchema (see src/core/schema/quick-check.ts). */
export function isWellFormedCodingContext(value: unknown): boolean {
  return (
    hasOnlyKeys(value, KEYS) &&
    isWellFormedCommonContext(value, CODING_WORK_STATES) &&
    isArrayOf(value.tasks, isString) &&
    isStringOrNull(value.commit) &&
    isTestRunOrNull(value.lastTestRun) &&
    isCount(value.reworks, 0) &&
    isStringOrNull(value.pullRequest) &&
    isReviewOrNull(value.lastReview) &&
    isStringOrNull(value.approvedCommit) &&
    isStringOrNull(value.mergeCommit)
  );
}
