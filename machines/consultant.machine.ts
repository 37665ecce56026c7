import { assertEvent, assign, setup } from 'xstate';
import {
  CONSULTANT_WORK_STATES,
  type ConsultantContext,
  type ConsultantEvent,
  type ConsultantState,
  type ConsultantWorkState,
  type Question,
} from './consultant.types.js';
import { initialLifecycleContext, signalSeen, type LifecycleInput } from './lifecycle-context.js';
import { lifecycleActions, lifecycleGuards } from './lifecycle-setup.js';
import { whilePaused, whileWorking } from './lifecycle-transitions.js';
import { onFirstUse } from './on-first-use.js';

/**
 * The consultant team lifecycle: a long-lived team that indexes a codebase once, then answers questions
 * about it — one at a time, the others queued in arrival order — asking the asker for clarification when
 * it must. It never completes: meta retires it. Pure definition like the other lifecycles.
 */
export const CONSULTANT_MACHINE_ID = 'consultant';
/** Stored beside persisted snapshots; bump it when a change would make old snapshots mean something else. */
export const CONSULTANT_MACHINE_VERSION = 1;

function questionOf(event: Extract<ConsultantEvent, { type: 'QUESTION_RECEIVED' }>): Question {
  return { ...signalSeen(event), from: event.from ?? null };
}

/** What every working state accepts: the shared wiring, questions queued, and retirement by meta. */
function busy(state: ConsultantWorkState) {
  return {
    ...whileWorking(state),
    QUESTION_RECEIVED: { actions: 'enqueueQuestion' },
    RETIRE: 'retired',
  } as const;
}

/** The machine, built on first use (on-first-use.ts). */
export const getConsultantMachine = onFirstUse(() =>
  setup({
    types: {
      context: {} as ConsultantContext,
      events: {} as ConsultantEvent,
      input: {} as LifecycleInput,
    },
    actions: {
      ...lifecycleActions<ConsultantContext, ConsultantEvent>(),
      recordIndex: assign(({ event }) => {
        assertEvent(event, 'INDEX_READY');
        return { filesIndexed: event.filesIndexed };
      }),
      enqueueQuestion: assign(({ context, event }) => {
        assertEvent(event, 'QUESTION_RECEIVED');
        return { queue: [...context.queue, questionOf(event)], lastQuestion: signalSeen(event) };
      }),
      startQuestion: assign(({ event }) => {
        assertEvent(event, 'QUESTION_RECEIVED');
        return { current: questionOf(event), lastQuestion: signalSeen(event) };
      }),
      takeNextQuestion: assign(({ context }) => ({ current: context.queue[0] ?? null, queue: context.queue.slice(1) })),
      recordAnswer: assign(({ context, event }) => {
        assertEvent(event, 'ANSWER_SENT');
        return {
          current: null,
          answered: context.answered + 1,
          lastAnswer: { questionId: context.current?.signalId ?? '', reportId: event.reportId ?? null },
        };
      }),
      recordFeedback: assign(({ event }) => {
        assertEvent(event, 'FEEDBACK_RECEIVED');
        return { lastFeedback: signalSeen(event) };
      }),
    },
    guards: {
      ...lifecycleGuards<ConsultantContext, ConsultantEvent>(),
      hasQueuedQuestion: ({ context }) => context.queue.length > 0,
    },
  }).createMachine({
    id: CONSULTANT_MACHINE_ID,
    context: () => ({
      ...initialLifecycleContext<ConsultantState, ConsultantWorkState>(),
      filesIndexed: null,
      current: null,
      queue: [],
      lastFeedback: null,
      answered: 0,
      lastAnswer: null,
    }),
    initial: 'onboarding',
    states: {
      onboarding: {
        description: 'Reading the mission, which codebase to index and what questions to expect',
        entry: { type: 'recordEntry', params: { state: 'onboarding' } },
        on: {
          MISSION_ASSIGNED: { guard: 'hasNoMission', actions: 'recordMission' },
          INDEXING_STARTED: { guard: 'hasMission', target: 'indexing' },
          ...busy('onboarding'),
        },
      },
      indexing: {
        description: 'Indexing the codebase once, to answer questions from',
        entry: { type: 'recordEntry', params: { state: 'indexing' } },
        on: {
          INDEX_READY: { target: 'ready', actions: 'recordIndex' },
          ...busy('indexing'),
        },
      },
      ready: {
        description: 'Waiting for a question (a queued one is taken at once)',
        entry: { type: 'recordEntry', params: { state: 'ready' } },
        always: { guard: 'hasQueuedQuestion', target: 'researching', actions: 'takeNextQuestion' },
        on: {
          ...busy('ready'),
          QUESTION_RECEIVED: { target: 'researching', actions: 'startQuestion' },
        },
      },
      researching: {
        description: 'Researching the current question, to answer it with a report signal to the asker',
        entry: { type: 'recordEntry', params: { state: 'researching' } },
        on: {
          ANSWER_SENT: { target: 'ready', actions: 'recordAnswer' },
          CLARIFICATION_REQUESTED: 'waiting-for-feedback',
          ...busy('researching'),
        },
      },
      'waiting-for-feedback': {
        description: 'Asked the asker to clarify the question, whose reply resumes the research',
        entry: { type: 'recordEntry', params: { state: 'waiting-for-feedback' } },
        on: {
          FEEDBACK_RECEIVED: { target: 'researching', actions: 'recordFeedback' },
          ...busy('waiting-for-feedback'),
        },
      },
      paused: {
        description: 'Manually paused, RESUME returns to the state it was paused in',
        entry: { type: 'recordEntry', params: { state: 'paused' } },
        exit: 'forgetPause',
        on: {
          ...whilePaused(CONSULTANT_WORK_STATES),
          QUESTION_RECEIVED: { actions: 'enqueueQuestion' },
          RETIRE: 'retired',
        },
      },
      retired: {
        description: 'Retired by meta, answers no more questions',
        type: 'final',
        entry: { type: 'recordEntry', params: { state: 'retired' } },
      },
      failed: {
        description: 'Error occurred (context.failure says why and where)',
        type: 'final',
        entry: { type: 'recordEntry', params: { state: 'failed' } },
      },
    },
  }),
);

export type ConsultantMachine = ReturnType<typeof getConsultantMachine>;
