import type { CodingEvent } from '../../../../machines/coding.types.js';
import { pickSamples, sampleTime, sharedSamples, type ModelTestSamples } from '../archetype.js';

const samples: CodingEvent[] = [
  ...sharedSamples,
  { type: 'PLAN_READY', tasks: ['add endpoint', 'add tests'], at: sampleTime(20) },
  { type: 'CHANGES_COMMITTED', commit: 'abc1234', at: sampleTime(21) },
  { type: 'TESTS_COMPLETE', passed: 10, failed: 2, at: sampleTime(22) },
  { type: 'TESTS_COMPLETE', passed: 12, failed: 0, at: sampleTime(23) },
  { type: 'TESTS_COMPLETE', passed: 0, failed: 0, at: sampleTime(24) },
  { type: 'REVIEW_REQUESTED', pullRequest: 'https://git.example/acme/pull/7', reviewers: ['ada'], at: sampleTime(25) },
  { type: 'CHANGES_REQUESTED', reviewer: 'ada', comments: ['rename the handler'], at: sampleTime(26) },
  { type: 'PR_APPROVED', reviewer: 'ada', commit: 'abc1234', at: sampleTime(27) },
  { type: 'PR_MERGED', commit: 'def5678', at: sampleTime(28) },
  { type: 'CLEANUP_DONE', at: sampleTime(29) },
];

/** Failing, passing and empty test runs: both sides of the tests guards. */
export const codingModelTest: ModelTestSamples = {
  samples,
  scenarios: {
    'failing tests and requested changes loop back to implementing, then merge': pickSamples(samples, [
      'MISSION_ASSIGNED',
      'PLAN_READY',
      'CHANGES_COMMITTED',
      'TESTS_COMPLETE:failed=2',
      'CHANGES_COMMITTED',
      'TESTS_COMPLETE:failed=0',
      'REVIEW_REQUESTED',
      'CHANGES_REQUESTED',
      'CHANGES_COMMITTED',
      'TESTS_COMPLETE:failed=0',
      'REVIEW_REQUESTED',
      'PAUSE',
      'RESUME',
      'PR_APPROVED',
      'PR_MERGED',
      'QUESTION_RECEIVED',
      'CLEANUP_DONE',
    ]),
  },
};
