import { z } from 'zod';
import { builtOnFirstUse } from '../../../core/schema/common.js';
import { DELIVERABLE_WORK_STATES, type DeliverableContext } from '../../../../machines/deliverable.types.js';
import {
  COMMON_CONTEXT_KEYS,
  commonContext,
  isWellFormedCommonContext,
} from '../../../core/schema/lifecycle-context.js';
import { hasOnlyKeys, isArrayOf, isFiniteNumber, isString, orNull } from '../../../core/schema/quick-check.js';

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

const KEYS: ReadonlySet<string> = new Set([...COMMON_CONTEXT_KEYS, 'sources', 'filesRead', 'insights', 'document']);
const DOCUMENT_KEYS: ReadonlySet<string> = new Set(['path', 'bytes']);
const isDocumentOrNull = orNull(
  (value) => hasOnlyKeys(value, DOCUMENT_KEYS) && isString(value.path) && isFiniteNumber(value.bytes),
);
const isNumberOrNull = orNull(isFiniteNumber);

/** The quick check of deliverableContextSchema (see src/core/schema/quick-check.ts). */
export function isWellFormedDeliverableContext(value: unknown): boolean {
  return (
    hasOnlyKeys(value, KEYS) &&
    isWellFormedCommonContext(value, DELIVERABLE_WORK_STATES) &&
    isArrayOf(value.sources, isString) &&
    isNumberOrNull(value.filesRead) &&
    isArrayOf(value.insights, isString) &&
    isDocumentOrNull(value.document)
  );
}
