import type { DeliverableEvent } from '../../../../machines/deliverable.types.js';
import { pickSamples, sampleTime, sharedSamples, type ModelTestSamples } from '../archetype.js';

const samples: DeliverableEvent[] = [
  ...sharedSamples,
  { type: 'PLAN_READY', sources: ['src/', 'README.md'], at: sampleTime(10) },
  { type: 'SCAN_COMPLETE', filesRead: 0, at: sampleTime(11) },
  { type: 'SCAN_COMPLETE', filesRead: 42, at: sampleTime(12) },
  { type: 'INSIGHTS_READY', insights: ['layered architecture'], at: sampleTime(13) },
  { type: 'DOCUMENT_WRITTEN', path: 'deliverable.md', bytes: 0, at: sampleTime(14) },
  { type: 'DOCUMENT_WRITTEN', path: 'deliverable.md', bytes: 2048, at: sampleTime(15) },
];

/** A scan of no files and one of some; an empty and a non-empty document: both sides of every guard. */
export const deliverableModelTest: ModelTestSamples = {
  samples,
  scenarios: {
    'pausing and resuming in every working state, then completing': pickSamples(samples, [
      'PAUSE',
      'RESUME',
      'MISSION_ASSIGNED',
      'PLAN_READY',
      'PAUSE',
      'RESUME',
      'SCAN_COMPLETE:filesRead=42',
      'DIRECTIVE_RECEIVED',
      'PAUSE',
      'RESUME',
      'INSIGHTS_READY',
      'QUESTION_RECEIVED',
      'PAUSE',
      'RESUME',
      'DOCUMENT_WRITTEN:bytes=2048',
    ]),
  },
};
