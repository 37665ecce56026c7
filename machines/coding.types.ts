import { z } from 'zod';
import { nonEmptyString } from './schema-primitives.js';
import type { LifecycleContext } from './lifecycle-context.js';
import {
  directiveReceivedEvent,
  failEvent,
  missionAssignedEvent,
  pauseEvent,
  questionReceivedEvent,
  resumeEvent,
  timestamped,
} from './lifecycle-events.js';

/**
 * States of a coding team. The spec names `implementing`, `testing` and `pr-open` (§3.2); the rest are the
 * steps a change really goes through until it is merged, plus the lifecycle states every team shares.
 */
export type CodingState =
  | 'preparing'
  | 'implementing'
  | 'testing'
  | 'pr-open'
  | 'pr-review'
  | 'pr-approved'
  | 'merged'
  | 'complete'
  | 'failed'
  | 'paused';

/** The states a team does work in: the ones it can be paused in and resumed to. */
export const CODING_WORK_STATES = ['preparing', 'implementing', 'testing', 'pr-open', 'pr-review', 'pr-approved', 'merged'] as const;
export type CodingWorkState = (typeof CODING_WORK_STATES)[number];

const testCount = z.int().nonnegative();

/**
 * Events of the coding lifecycle. As in the deliverable lifecycle, a progress event reports that the work
 * of the current state is done, with its result; see the README "Lifecycles" table.
 */
export const codingEventSchema = z.discriminatedUnion('type', [
  /** preparing → implementing: the mission is broken into tasks (needs a mission). */
  z.strictObject({ type: z.literal('PLAN_READY'), tasks: z.array(nonEmptyString), ...timestamped }),
  /** implementing → testing: a commit is ready to be tested. */
  z.strictObject({ type: z.literal('CHANGES_COMMITTED'), commit: nonEmptyString, ...timestamped }),
  /**
   * testing → implementing when any test failed (the rework loop), → pr-open when tests ran and all
   * passed; a run with no tests at all proves nothing and is refused.
   */
  z.strictObject({ type: z.literal('TESTS_COMPLETE'), passed: testCount, failed: testCount, ...timestamped }),
  /** pr-open → pr-review: the pull request (URL or id) is open, or updated after rework, and review is asked for. */
  z.strictObject({
    type: z.literal('REVIEW_REQUESTED'),
    pullRequest: nonEmptyString,
    reviewers: z.array(nonEmptyString).optional(),
    ...timestamped,
  }),
  /** pr-review → implementing: the reviewer asked for changes (the review loop). */
  z.strictObject({
    type: z.literal('CHANGES_REQUESTED'),
    reviewer: nonEmptyString.optional(),
    comments: z.array(nonEmptyString).optional(),
    ...timestamped,
  }),
  /** pr-review → pr-approved. */
  z.strictObject({ type: z.literal('PR_APPROVED'), reviewer: nonEmptyString, ...timestamped }),
  /** pr-approved → merged: the change is on the target branch. */
  z.strictObject({ type: z.literal('PR_MERGED'), commit: nonEmptyString, ...timestamped }),
  /** merged → complete: the merge is verified and the team's branch and workspace are cleaned up. */
  z.strictObject({ type: z.literal('CLEANUP_DONE'), ...timestamped }),
  failEvent,
  pauseEvent,
  resumeEvent,
  missionAssignedEvent,
  directiveReceivedEvent,
  questionReceivedEvent,
]);
export type CodingEvent = z.infer<typeof codingEventSchema>;

export interface CodingContext extends LifecycleContext<CodingState, CodingWorkState> {
  tasks: string[];
  /** The commit being tested or reviewed. */
  commit: string | null;
  lastTestRun: { passed: number; failed: number } | null;
  /** How many times work went back to implementing (tests failed or changes requested). */
  reworks: number;
  pullRequest: string | null;
  lastReview: { outcome: 'changes-requested' | 'approved'; reviewer: string | null; comments: string[] } | null;
  mergeCommit: string | null;
}
