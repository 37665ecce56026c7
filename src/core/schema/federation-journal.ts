import { z } from 'zod';
import { builtOnFirstUse, isoTimestamp, nonEmptyString } from './common.js';
import { RUN_OUTCOMES } from './launch-run.js';

/**
 * The federation journal (`.fed/journal.jsonl` at the root): what happened to the federation's teams as a
 * whole — onboarding, registry status changes, launches and how they ended, retries and removals. One
 * JSON line per record, appended durably; a team's lifecycle transitions stay in its own journal
 * (`<workspace>/.fed/state/journal.jsonl`), and `fed log` merges the two in time order. It outlives the
 * teams it names: a removed team's record stays here.
 */
export const FEDERATION_JOURNAL_FILE = 'journal.jsonl';

export const FEDERATION_RECORD_KINDS = [
  'onboarded',
  'status',
  'launch-started',
  'launch-ended',
  'retried',
  'removed',
] as const;
export type FederationRecordKind = (typeof FEDERATION_RECORD_KINDS)[number];

const base = { at: isoTimestamp, team: nonEmptyString };

export const federationRecordSchema = builtOnFirstUse(() =>
  z.discriminatedUnion('kind', [
    z.strictObject({
      ...base,
      kind: z.literal('onboarded'),
      archetype: nonEmptyString,
      placement: nonEmptyString,
      location: nonEmptyString,
    }),
    z.strictObject({ ...base, kind: z.literal('status'), from: nonEmptyString, to: nonEmptyString }),
    z.strictObject({ ...base, kind: z.literal('launch-started'), runId: nonEmptyString, stateBefore: nonEmptyString }),
    z.strictObject({
      ...base,
      kind: z.literal('launch-ended'),
      runId: nonEmptyString,
      /**
       * How the launch ended for the team (`complete`, `waiting` for meta or the next question by its
       * archetype's policy, `paused`, `failed`) and the agent run's own outcome.
       */
      result: z.enum(['complete', 'waiting', 'paused', 'failed']),
      outcome: z.enum(RUN_OUTCOMES),
      stateAfter: nonEmptyString,
      reason: z.string().nullable(),
    }),
    z.strictObject({
      ...base,
      kind: z.literal('retried'),
      run: z.number().int().positive(),
      mission: nonEmptyString,
      keptAs: z.array(nonEmptyString),
    }),
    z.strictObject({
      ...base,
      kind: z.literal('removed'),
      location: nonEmptyString,
      branch: nonEmptyString.optional(),
      forced: z.boolean(),
    }),
  ]),
);
export type FederationRecord = z.infer<typeof federationRecordSchema>;
