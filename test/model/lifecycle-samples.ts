import { type TeamStatusEvent } from 'fed';
import { archetypes, SAMPLE_FAIL_REASON } from 'fed/testing';

/**
 * Sample events the model-based tests explore every machine with: each archetype's come from its
 * descriptor (`modelTest`), so a new archetype joins these tests by being in the catalog. Where a guard
 * decides, there is one sample per branch, so every guarded transition is both taken and refused somewhere.
 * Each event type is stamped with its own time, so a test can tell which event entered a state.
 */
export const FAIL_REASON = SAMPLE_FAIL_REASON;

const teamStatusSamples: TeamStatusEvent[] = [{ type: 'PAUSE' }, { type: 'RESUME' }, { type: 'ARCHIVE' }];

/** Samples by machine id. */
export const samplesFor: Record<string, readonly { type: string }[]> = {
  'team-status': teamStatusSamples,
  ...Object.fromEntries(archetypes.map((a) => [a.lifecycle.id, a.modelTest.samples])),
};

/**
 * Whole runs worth playing end to end besides the shortest paths, which never go round a loop or come
 * back from a pause: the rework loops, resuming, queues, and recorded signals along the way.
 */
export const scenariosFor: Record<string, Readonly<Record<string, readonly { type: string }[]>>> = {
  'team-status': {
    'pausing, resuming and archiving': [
      teamStatusSamples[0]!,
      teamStatusSamples[1]!,
      teamStatusSamples[0]!,
      teamStatusSamples[2]!,
    ],
  },
  ...Object.fromEntries(archetypes.map((a) => [a.lifecycle.id, a.modelTest.scenarios])),
};

/** The working states (pausable, resumable) of each lifecycle machine. */
export const workStatesFor: Record<string, readonly string[]> = Object.fromEntries(
  archetypes.map((a) => [a.lifecycle.id, a.workStates]),
);
