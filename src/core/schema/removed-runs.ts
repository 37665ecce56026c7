import { z } from 'zod';
import { builtOnFirstUse, isoTimestamp, teamIdSchema } from './common.js';
import { launchRunSchema } from './launch-run.js';

/**
 * `.fed/removed-runs.jsonl` at the federation root: the runs of the teams `fed team remove` removed, one
 * JSON line per run, copied from the team's run journal before its workspace is deleted. Money spent stays
 * spent: `fed runs` lists these runs (marked removed), and the federation's budget
 * (`agent.limits.federationUsd`) and the dashboard's federation cost count them. Append-only; a removal
 * re-run after an interruption appends only the runs not kept yet, and readers count a team's run once.
 */
export const REMOVED_RUNS_FILE = 'removed-runs.jsonl';

export const removedRunSchema = builtOnFirstUse(() =>
  z.strictObject({
    /** The team the run was of; a team onboarded later under the same id is another team. */
    team: teamIdSchema,
    /** When the removal kept the run. */
    removedAt: isoTimestamp,
    run: launchRunSchema,
  }),
);
export type RemovedRun = z.infer<typeof removedRunSchema>;
