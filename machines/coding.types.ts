import { z } from 'zod';
import { nonEmptyString } from './schema-primitives.js';
import { eventDocs, NEEDS_MISSION } from './event-docs.js';
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
export const CODING_WORK_STATES = [
  'preparing',
  'implementing',
  'testing',
  'pr-open',
  'pr-review',
  'pr-approved',
  'merged',
] as const;
export type CodingWorkState = (typeof CODING_WORK_STATES)[number];

const testCount = z.int().nonnegative();

/**
 * Events of the coding lifecycle. As in the deliverable lifecycle, a progress event reports that the work
 * of the current state is done, with its result; each says what it does in its `eventDocs` entry.
 */
export const codingEventSchema = z.discriminatedUnion('type', [
  z
    .strictObject({ type: z.literal('PLAN_READY'), tasks: z.array(nonEmptyString), ...timestamped })
    .register(eventDocs, {
      summary: 'preparing → implementing: the mission is read and broken into tasks',
      needs: NEEDS_MISSION,
      sentBy: 'agent',
      example: { tasks: ['add the endpoint', 'add its tests'] },
    }),
  z.strictObject({ type: z.literal('CHANGES_COMMITTED'), commit: nonEmptyString, ...timestamped }).register(eventDocs, {
    summary: 'implementing → testing: the change is committed on the team branch',
    sentBy: 'agent',
    example: { commit: '<sha>' },
  }),
  z
    .strictObject({ type: z.literal('TESTS_COMPLETE'), passed: testCount, failed: testCount, ...timestamped })
    .register(eventDocs, {
      summary:
        'testing → pr-open when tests ran and all passed, back to implementing when any failed (a run of no tests proves nothing and is refused)',
      needs: 'a test run must have run some tests: passed + failed > 0',
      sentBy: 'agent',
      example: { passed: 12, failed: 0 },
    }),
  z
    .strictObject({
      type: z.literal('REVIEW_REQUESTED'),
      pullRequest: nonEmptyString,
      reviewers: z.array(nonEmptyString).optional(),
      ...timestamped,
    })
    .register(eventDocs, {
      summary: 'pr-open → pr-review: the branch (or pull request URL) is ready for review, then stop and wait for meta',
      sentBy: 'agent',
      example: { pullRequest: 'fed/<domain>' },
    }),
  z
    .strictObject({
      type: z.literal('CHANGES_REQUESTED'),
      reviewer: nonEmptyString.optional(),
      comments: z.array(nonEmptyString).optional(),
      ...timestamped,
    })
    .register(eventDocs, {
      summary:
        'pr-review (or pr-approved) → implementing: the reviewer asked for changes (fed team review --request-changes)',
      sentBy: 'meta',
    }),
  z
    .strictObject({ type: z.literal('PR_APPROVED'), reviewer: nonEmptyString, commit: nonEmptyString, ...timestamped })
    .register(eventDocs, {
      summary:
        'pr-review → pr-approved (fed team review --approve): approves the branch at `commit`, its head when reviewed; in pr-approved, approves a newer head again',
      sentBy: 'meta',
      example: { reviewer: 'meta', commit: '<sha>' },
    }),
  z.strictObject({ type: z.literal('PR_MERGED'), commit: nonEmptyString, ...timestamped }).register(eventDocs, {
    summary: 'pr-approved → merged: the change is on the base branch (fed team merge)',
    sentBy: 'meta',
  }),
  z.strictObject({ type: z.literal('CLEANUP_DONE'), ...timestamped }).register(eventDocs, {
    summary: "merged → complete: the team's worktree and branch are removed (fed team merge)",
    sentBy: 'meta',
  }),
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
  /** The head commit of the team branch the approval was for: what `fed team merge` merges, and nothing newer. */
  approvedCommit: string | null;
  mergeCommit: string | null;
}
