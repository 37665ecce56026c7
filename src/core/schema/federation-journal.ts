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

/** What a person can decide from the dashboard; each is also a CLI command. */
export const UI_ACTIONS = [
  'pause',
  'resume',
  'approve',
  'request-changes',
  'merge',
  'retry',
  'archive',
  'remove',
  'answer',
] as const;
export type UiAction = (typeof UI_ACTIONS)[number];

/** The dashboard's forms that give the fleet work (its steering, each a route of its own): journaled as actions too. */
export const UI_STEERING_ACTIONS = ['onboard', 'directive', 'apply-plan', 'add-schedule', 'remove-schedule'] as const;
export type UiSteeringAction = (typeof UI_STEERING_ACTIONS)[number];

export const FEDERATION_RECORD_KINDS = [
  'onboarded',
  'status',
  'launch-started',
  'launch-ended',
  'retried',
  'removed',
  'action',
  'scheduled',
  'moved',
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
      /** False when no workspace was there to delete (only the entry went); records before it leave it out: deleted. */
      workspaceDeleted: z.boolean().optional(),
      /** True when the team's agent settings (`agent.teams.<id>` in federate.config.json) were taken out with it. */
      agentSettingsCleared: z.boolean().optional(),
      /** The ids of its schedules taken out of federate.config.json with it; left out when it had none. */
      schedulesRemoved: z.array(nonEmptyString).optional(),
      branch: nonEmptyString.optional(),
      forced: z.boolean(),
    }),
    /**
     * A person's decision taken somewhere other than the CLI (the dashboard, `fed ui`), after the library
     * operation succeeded: which one, on which signal when it was about one. The operation writes its own
     * records too (a `status`, a lifecycle journal line); this one says who asked, and from where.
     */
    z.strictObject({
      ...base,
      kind: z.literal('action'),
      action: z.enum([...UI_ACTIONS, ...UI_STEERING_ACTIONS]),
      source: z.enum(['ui']),
      signalId: nonEmptyString.optional(),
      /** For add-schedule and remove-schedule: the schedule's id (`team` is the team it sends to). */
      schedule: nonEmptyString.optional(),
    }),
    /**
     * A schedule fired (config `schedules`, `fed serve`): the directive it sent the team, and the tick it
     * stands for — a cron time, or the commit a git ref moved to. A restarted server reads these to fire
     * what fell due while nothing served, once.
     */
    z.strictObject({
      ...base,
      kind: z.literal('scheduled'),
      schedule: nonEmptyString,
      signalId: nonEmptyString,
      subject: nonEmptyString,
      /** The cron tick it stands for (ISO), or the time the ref was seen moved. */
      due: isoTimestamp,
      /** For a schedule on a git ref: the commit the ref had moved to. */
      commit: nonEmptyString.optional(),
    }),
    /**
     * The team was placed on another host (`fed team move`, or `fed serve`'s failover from a lost host):
     * its workspace is `location` there from now on, and only that host's server runs it.
     */
    z.strictObject({
      ...base,
      kind: z.literal('moved'),
      /** The host it was placed on (null: none was recorded). */
      from: nonEmptyString.nullable(),
      to: nonEmptyString,
      location: nonEmptyString,
      /** Who moved it: a person (`fed team move`) or a server's automatic failover. */
      by: z.enum(['person', 'failover']),
    }),
  ]),
);
export type FederationRecord = z.infer<typeof federationRecordSchema>;
