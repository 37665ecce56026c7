import { z } from 'zod';
import { eventDocs, NEEDS_MISSION } from './event-docs.js';
import type { LifecycleContext, SignalSeen } from './lifecycle-context.js';
import {
  directiveReceivedEvent,
  failEvent,
  missionAssignedEvent,
  pauseEvent,
  questionReceivedEvent,
  resumeEvent,
  timestamped,
} from './lifecycle-events.js';
import { nonEmptyString } from './schema-primitives.js';

/**
 * States of a consultant team: a long-lived team that indexes a codebase once and then answers questions
 * about it, one at a time, until meta retires it. It never completes.
 */
export type ConsultantState =
  'onboarding' | 'indexing' | 'ready' | 'researching' | 'waiting-for-feedback' | 'paused' | 'retired' | 'failed';

/** The states a team does work in (or waits for work in): the ones it can be paused in and resumed to. */
export const CONSULTANT_WORK_STATES = [
  'onboarding',
  'indexing',
  'ready',
  'researching',
  'waiting-for-feedback',
] as const;
export type ConsultantWorkState = (typeof CONSULTANT_WORK_STATES)[number];

/**
 * Events of the consultant lifecycle. Questions come in as QUESTION_RECEIVED (from question signals, see
 * lifecycle-events.ts); the clarification loop's reply comes in as FEEDBACK_RECEIVED, from a signal sent by
 * the asker while the team waits for it.
 */
export const consultantEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('INDEXING_STARTED'), ...timestamped }).register(eventDocs, {
    summary: 'onboarding → indexing: the mission (which codebase, what to cover) is read; indexing starts',
    needs: NEEDS_MISSION,
    sentBy: 'agent',
  }),
  z
    .strictObject({ type: z.literal('INDEX_READY'), filesIndexed: z.int().positive(), ...timestamped })
    .register(eventDocs, {
      summary: 'indexing → ready: the codebase is indexed (an index of no files can answer nothing and is refused)',
      sentBy: 'agent',
      example: { filesIndexed: 120 },
    }),
  z
    .strictObject({ type: z.literal('ANSWER_SENT'), reportId: nonEmptyString.optional(), ...timestamped })
    .register(eventDocs, {
      summary: 'researching → ready, or to the next queued question: the answer (a report signal to the asker) is sent',
      sentBy: 'agent',
      example: { reportId: '<id of the report signal>' },
    }),
  z.strictObject({ type: z.literal('CLARIFICATION_REQUESTED'), ...timestamped }).register(eventDocs, {
    summary: 'researching → waiting-for-feedback: you sent the asker a question signal asking them to clarify',
    sentBy: 'agent',
  }),
  z
    .strictObject({
      type: z.literal('FEEDBACK_RECEIVED'),
      signalId: nonEmptyString,
      subject: nonEmptyString,
      ...timestamped,
    })
    .register(eventDocs, {
      summary: "waiting-for-feedback → researching: the asker's reply (any signal from them) arrived",
      sentBy: 'signal',
    }),
  z.strictObject({ type: z.literal('RETIRE'), ...timestamped }).register(eventDocs, {
    summary:
      'any state but a final one → retired (final): meta has no more questions for this team (a `retire` directive)',
    sentBy: 'meta',
  }),
  failEvent,
  pauseEvent,
  resumeEvent,
  missionAssignedEvent,
  directiveReceivedEvent,
  questionReceivedEvent,
]);
export type ConsultantEvent = z.infer<typeof consultantEventSchema>;

/** A question the team was asked: the signal, and who asked it (where the answer goes). */
export interface Question extends SignalSeen {
  from: string | null;
}

export interface ConsultantContext extends LifecycleContext<ConsultantState, ConsultantWorkState> {
  filesIndexed: number | null;
  /** The question being researched (or waiting for feedback on); null when ready. */
  current: Question | null;
  /** Questions that arrived while the team was busy, in arrival order: each is researched in turn. */
  queue: Question[];
  /** The asker's latest reply to a clarification request. */
  lastFeedback: SignalSeen | null;
  /** Questions answered so far, and the last answer (the question it answered and its report signal). */
  answered: number;
  lastAnswer: { questionId: string; reportId: string | null } | null;
}
