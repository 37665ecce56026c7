import type { CodingEvent, DeliverableEvent, TeamStatusEvent } from '../../src/index.js';

/**
 * Sample events the model-based tests explore every machine with. Where a guard decides, there is one
 * sample per branch (a scan of no files and one of some files; an empty and a non-empty document; failing,
 * passing and empty test runs), so every guarded transition is both taken and refused somewhere.
 *
 * Each event type is stamped with its own time, so a test can tell which event entered a state.
 */
const at = (minute: number) => `2025-01-01T10:${String(minute).padStart(2, '0')}:00.000Z`;

export const FAIL_REASON = 'source files are inaccessible';

const sharedSamples = [
  { type: 'MISSION_ASSIGNED', signalId: 'sig-mission', subject: 'document the API', body: 'Write docs/api.md', at: at(1) },
  { type: 'DIRECTIVE_RECEIVED', signalId: 'sig-directive', subject: 'also cover errors', at: at(2) },
  { type: 'QUESTION_RECEIVED', signalId: 'sig-question', subject: 'eta?', at: at(3) },
  { type: 'FAIL', reason: FAIL_REASON, at: at(4) },
  { type: 'PAUSE', at: at(5) },
  { type: 'RESUME', at: at(6) },
] as const;

export const deliverableSamples: DeliverableEvent[] = [
  ...sharedSamples,
  { type: 'PLAN_READY', sources: ['src/', 'README.md'], at: at(10) },
  { type: 'SCAN_COMPLETE', filesRead: 0, at: at(11) },
  { type: 'SCAN_COMPLETE', filesRead: 42, at: at(12) },
  { type: 'INSIGHTS_READY', insights: ['layered architecture'], at: at(13) },
  { type: 'DOCUMENT_WRITTEN', path: 'deliverable.md', bytes: 0, at: at(14) },
  { type: 'DOCUMENT_WRITTEN', path: 'deliverable.md', bytes: 2048, at: at(15) },
];

export const codingSamples: CodingEvent[] = [
  ...sharedSamples,
  { type: 'PLAN_READY', tasks: ['add endpoint', 'add tests'], at: at(20) },
  { type: 'CHANGES_COMMITTED', commit: 'abc1234', at: at(21) },
  { type: 'TESTS_COMPLETE', passed: 10, failed: 2, at: at(22) },
  { type: 'TESTS_COMPLETE', passed: 12, failed: 0, at: at(23) },
  { type: 'TESTS_COMPLETE', passed: 0, failed: 0, at: at(24) },
  { type: 'REVIEW_REQUESTED', pullRequest: 'https://git.example/acme/pull/7', reviewers: ['ada'], at: at(25) },
  { type: 'CHANGES_REQUESTED', reviewer: 'ada', comments: ['rename the handler'], at: at(26) },
  { type: 'PR_APPROVED', reviewer: 'ada', at: at(27) },
  { type: 'PR_MERGED', commit: 'def5678', at: at(28) },
  { type: 'CLEANUP_DONE', at: at(29) },
];

export const teamStatusSamples: TeamStatusEvent[] = [{ type: 'PAUSE' }, { type: 'RESUME' }, { type: 'ARCHIVE' }];

/** Samples by machine id. */
export const samplesFor: Record<string, readonly { type: string }[]> = {
  deliverable: deliverableSamples,
  coding: codingSamples,
  'team-status': teamStatusSamples,
};

/**
 * Whole runs worth playing end to end besides the shortest paths, which never go round a loop or come
 * back from a pause: the rework loops, resuming, and recorded signals along the way.
 */
export const scenariosFor: Record<string, Record<string, readonly { type: string }[]>> = {
  deliverable: {
    'pausing and resuming in every working state, then completing': pick(deliverableSamples, [
      'PAUSE', 'RESUME', 'MISSION_ASSIGNED', 'PLAN_READY', 'PAUSE', 'RESUME', 'SCAN_COMPLETE:filesRead=42',
      'DIRECTIVE_RECEIVED', 'PAUSE', 'RESUME', 'INSIGHTS_READY', 'QUESTION_RECEIVED', 'PAUSE', 'RESUME',
      'DOCUMENT_WRITTEN:bytes=2048',
    ]),
  },
  coding: {
    'failing tests and requested changes loop back to implementing, then merge': pick(codingSamples, [
      'MISSION_ASSIGNED', 'PLAN_READY', 'CHANGES_COMMITTED', 'TESTS_COMPLETE:failed=2', 'CHANGES_COMMITTED',
      'TESTS_COMPLETE:failed=0', 'REVIEW_REQUESTED', 'CHANGES_REQUESTED', 'CHANGES_COMMITTED', 'TESTS_COMPLETE:failed=0',
      'REVIEW_REQUESTED', 'PAUSE', 'RESUME', 'PR_APPROVED', 'PR_MERGED', 'QUESTION_RECEIVED', 'CLEANUP_DONE',
    ]),
  },
  'team-status': {
    'pausing, resuming and archiving': pick(teamStatusSamples, ['PAUSE', 'RESUME', 'PAUSE', 'ARCHIVE']),
  },
};

/** Samples by `TYPE` or `TYPE:field=value` (for a type with several samples). */
function pick<TEvent extends { type: string }>(samples: readonly TEvent[], keys: readonly string[]): TEvent[] {
  return keys.map((key) => {
    const [type, condition] = key.split(':');
    const [field, value] = condition?.split('=') ?? [];
    const found = samples.find((s) => s.type === type && (field === undefined || String((s as Record<string, unknown>)[field]) === value));
    if (!found) throw new Error(`no sample event ${key}`);
    return found;
  });
}
