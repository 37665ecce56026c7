import type { ConsultantEvent } from '../../../../machines/consultant.types.js';
import { pickSamples, sampleTime, sharedSamples, type ModelTestSamples } from '../archetype.js';

const samples: ConsultantEvent[] = [
  ...sharedSamples,
  { type: 'INDEXING_STARTED', at: sampleTime(30) },
  { type: 'INDEX_READY', filesIndexed: 120, at: sampleTime(31) },
  { type: 'ANSWER_SENT', reportId: 'sig-report', at: sampleTime(32) },
  { type: 'CLARIFICATION_REQUESTED', at: sampleTime(33) },
  { type: 'FEEDBACK_RECEIVED', signalId: 'sig-feedback', subject: 'I meant the HTTP layer', at: sampleTime(34) },
  { type: 'RETIRE', at: sampleTime(35) },
];

/**
 * The shortest paths already take every transition; the scenarios go round the question loop, queue a
 * question while indexing, researching and paused, and clarify one. (The model graph tells "some queued"
 * from "none", not how many: arrival order with several queued is tested on the machine directly.)
 */
export const consultantModelTest: ModelTestSamples = {
  samples,
  scenarios: {
    'questions queue while indexing and researching, and are taken after each answer, then retire': pickSamples(
      samples,
      [
        'MISSION_ASSIGNED',
        'INDEXING_STARTED',
        'QUESTION_RECEIVED',
        'INDEX_READY',
        'QUESTION_RECEIVED',
        'CLARIFICATION_REQUESTED',
        'FEEDBACK_RECEIVED',
        'ANSWER_SENT',
        'QUESTION_RECEIVED',
        'ANSWER_SENT',
        'ANSWER_SENT',
        'QUESTION_RECEIVED',
        'ANSWER_SENT',
        'RETIRE',
      ],
    ),
    'a question that arrives while paused is researched once resumed': pickSamples(samples, [
      'MISSION_ASSIGNED',
      'INDEXING_STARTED',
      'INDEX_READY',
      'PAUSE',
      'QUESTION_RECEIVED',
      'RESUME',
      'CLARIFICATION_REQUESTED',
      'PAUSE',
      'RESUME',
      'FEEDBACK_RECEIVED',
      'ANSWER_SENT',
      'DIRECTIVE_RECEIVED',
      'RETIRE',
    ]),
  },
};
