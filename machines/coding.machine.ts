import { assertEvent, assign, setup } from 'xstate';
import {
  CODING_WORK_STATES,
  type CodingContext,
  type CodingEvent,
  type CodingState,
  type CodingWorkState,
} from './coding.types.js';
import { initialLifecycleContext, type LifecycleInput } from './lifecycle-context.js';
import { lifecycleActions, lifecycleGuards } from './lifecycle-setup.js';
import { whilePaused, whileWorking } from './lifecycle-transitions.js';
import { onFirstUse } from './on-first-use.js';

/**
 * The coding team lifecycle: a team changes the codebase on its own branch and gets the change merged
 * through a pull request, with the two loops real work has — failing tests and requested changes both send
 * it back to implementing. Pure definition like the deliverable machine; effects live in `src/`.
 */
export const CODING_MACHINE_ID = 'coding';
/**
 * Stored beside persisted snapshots; bump it when a change would make old snapshots mean something else.
 * 2: the context records the approved commit (`approvedCommit`); version 1 snapshots migrate with none.
 */
export const CODING_MACHINE_VERSION = 2;

/** The machine, built on first use (on-first-use.ts). */
export const getCodingMachine = onFirstUse(() =>
  setup({
    types: {
      context: {} as CodingContext,
      events: {} as CodingEvent,
      input: {} as LifecycleInput,
    },
    actions: {
      ...lifecycleActions<CodingContext, CodingEvent>(),
      recordPlan: assign(({ event }) => {
        assertEvent(event, 'PLAN_READY');
        return { tasks: event.tasks };
      }),
      recordCommit: assign(({ event }) => {
        assertEvent(event, 'CHANGES_COMMITTED');
        return { commit: event.commit };
      }),
      recordTestRun: assign(({ event }) => {
        assertEvent(event, 'TESTS_COMPLETE');
        return { lastTestRun: { passed: event.passed, failed: event.failed } };
      }),
      recordRework: assign(({ context }) => ({ reworks: context.reworks + 1 })),
      recordReviewRequest: assign(({ event }) => {
        assertEvent(event, 'REVIEW_REQUESTED');
        return { pullRequest: event.pullRequest };
      }),
      recordChangesRequested: assign(({ event }) => {
        assertEvent(event, 'CHANGES_REQUESTED');
        return {
          lastReview: {
            outcome: 'changes-requested' as const,
            reviewer: event.reviewer ?? null,
            comments: event.comments ?? [],
          },
          approvedCommit: null,
        };
      }),
      recordApproval: assign(({ event }) => {
        assertEvent(event, 'PR_APPROVED');
        return {
          lastReview: { outcome: 'approved' as const, reviewer: event.reviewer, comments: [] },
          approvedCommit: event.commit,
        };
      }),
      recordMerge: assign(({ event }) => {
        assertEvent(event, 'PR_MERGED');
        return { mergeCommit: event.commit };
      }),
    },
    guards: {
      ...lifecycleGuards<CodingContext, CodingEvent>(),
      testsFailed: ({ event }) => event.type === 'TESTS_COMPLETE' && event.failed > 0,
      testsPassed: ({ event }) => event.type === 'TESTS_COMPLETE' && event.failed === 0 && event.passed > 0,
    },
  }).createMachine({
    id: CODING_MACHINE_ID,
    context: () => ({
      ...initialLifecycleContext<CodingState, CodingWorkState>(),
      tasks: [],
      commit: null,
      lastTestRun: null,
      reworks: 0,
      pullRequest: null,
      lastReview: null,
      approvedCommit: null,
      mergeCommit: null,
    }),
    initial: 'preparing',
    states: {
      preparing: {
        description: 'Reading the mission, planning the change',
        entry: { type: 'recordEntry', params: { state: 'preparing' } },
        on: {
          MISSION_ASSIGNED: { guard: 'hasNoMission', actions: 'recordMission' },
          PLAN_READY: { guard: 'hasMission', target: 'implementing', actions: 'recordPlan' },
          ...whileWorking('preparing'),
        },
      },
      implementing: {
        description: 'Changing the code on the team branch',
        entry: { type: 'recordEntry', params: { state: 'implementing' } },
        on: {
          CHANGES_COMMITTED: { target: 'testing', actions: 'recordCommit' },
          ...whileWorking('implementing'),
        },
      },
      testing: {
        description: 'Running the tests on the committed change',
        entry: { type: 'recordEntry', params: { state: 'testing' } },
        on: {
          TESTS_COMPLETE: [
            { guard: 'testsFailed', target: 'implementing', actions: ['recordTestRun', 'recordRework'] },
            { guard: 'testsPassed', target: 'pr-open', actions: 'recordTestRun' },
          ],
          ...whileWorking('testing'),
        },
      },
      'pr-open': {
        description: 'Tests pass, opening (or updating) the pull request and asking for review',
        entry: { type: 'recordEntry', params: { state: 'pr-open' } },
        on: {
          REVIEW_REQUESTED: { target: 'pr-review', actions: 'recordReviewRequest' },
          ...whileWorking('pr-open'),
        },
      },
      'pr-review': {
        description: 'Waiting for the review of the pull request',
        entry: { type: 'recordEntry', params: { state: 'pr-review' } },
        on: {
          CHANGES_REQUESTED: { target: 'implementing', actions: ['recordChangesRequested', 'recordRework'] },
          PR_APPROVED: { target: 'pr-approved', actions: 'recordApproval' },
          ...whileWorking('pr-review'),
        },
      },
      'pr-approved': {
        description: 'Approved, merging the pull request (a branch that moved since is reviewed again)',
        entry: { type: 'recordEntry', params: { state: 'pr-approved' } },
        on: {
          PR_MERGED: { target: 'merged', actions: 'recordMerge' },
          PR_APPROVED: { actions: 'recordApproval' },
          CHANGES_REQUESTED: { target: 'implementing', actions: ['recordChangesRequested', 'recordRework'] },
          ...whileWorking('pr-approved'),
        },
      },
      merged: {
        description: 'Merged, verifying the result and cleaning up the team branch and workspace',
        entry: { type: 'recordEntry', params: { state: 'merged' } },
        on: {
          CLEANUP_DONE: 'complete',
          ...whileWorking('merged'),
        },
      },
      paused: {
        description: 'Manually paused, RESUME returns to the state it was paused in',
        entry: { type: 'recordEntry', params: { state: 'paused' } },
        exit: 'forgetPause',
        on: whilePaused(CODING_WORK_STATES),
      },
      complete: {
        description: 'Change merged and cleaned up',
        type: 'final',
        entry: { type: 'recordEntry', params: { state: 'complete' } },
      },
      failed: {
        description: 'Error occurred (context.failure says why and where)',
        type: 'final',
        entry: { type: 'recordEntry', params: { state: 'failed' } },
      },
    },
  }),
);

export type CodingMachine = ReturnType<typeof getCodingMachine>;
