import { z } from 'zod';
import { builtOnFirstUse, isoTimestamp, nonEmptyString } from './common.js';
import { AGENT_PRESETS, SANDBOX_ALLOWANCE_NAMES } from './config.js';
import { networkRunRecordSchema } from './network-policy.js';

/**
 * One run of a team's agent by `fed launch`, as `lastRun` in `fed team show --json` and `fed launch
 * --json`, and as one line per run in the team's run journal (`<workspace>/.fed/logs/runs.jsonl`).
 *
 * `outcome` says honestly how the run ended, from the CLI's final event, its exit code and the lifecycle:
 * - `completed`: the lifecycle reached its end (for a deliverable team: `complete`);
 * - `max-turns`, `budget`, `timeout`: a turn, cost or wall-time limit was reached (the CLI's or fed's);
 * - `rate-limited`: the provider refused for rate or quota; `auth`: the CLI could not authenticate;
 * - `interrupted`: stopped by Ctrl-C, a pause, or a launcher that died;
 * - `failed`: the agent itself reported that the work cannot be done (a lifecycle `FAIL` with its reason);
 * - `rejected`: the agent said it was done, and fed's checks refused the result (the violations are the reason);
 * - `refused`: the CLI refused to start — it exited non-zero at once, with no event, saying why on
 *   stderr (a mode it refuses as root, a flag it does not know); that message is the reason;
 * - `crashed`: exited non-zero (or reported an error) before the lifecycle was over;
 * - `no-progress`: exited 0 without moving the lifecycle.
 */
export const RUN_OUTCOMES = [
  'completed',
  'max-turns',
  'budget',
  'rate-limited',
  'auth',
  'failed',
  'rejected',
  'refused',
  'crashed',
  'timeout',
  'interrupted',
  'no-progress',
] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/** Outcomes that pause the team (to be relaunched later, resuming the session) instead of failing it. */
export const TRANSIENT_OUTCOMES: readonly RunOutcome[] = [
  'rate-limited',
  'budget',
  'max-turns',
  'interrupted',
  'timeout',
];

export const RUNS_JOURNAL_FILE = 'runs.jsonl';
export const RUN_TRANSCRIPTS_DIR = 'runs';
/** `<workspace>/.fed/launch/agent.json`: the run in progress, so a later launch can find an orphan. */
export const CURRENT_RUN_FILE = 'agent.json';

const count = z.number().int().nonnegative();

export const launchRunSchema = builtOnFirstUse(() =>
  z.strictObject({
    runId: nonEmptyString,
    preset: z.enum(AGENT_PRESETS),
    /**
     * The argument array that was run (sandbox wrapper excluded), the prompt in it replaced by
     * `<prompt: <its file>>` (`promptPath`); runs recorded before the prompt was kept apart repeat it.
     */
    command: z.array(z.string()),
    /** The CLI's own session id, used to resume this session on the next launch; null when it has none. */
    sessionId: z.string().nullable(),
    /** The session this run resumed, when it did. */
    resumedSessionId: z.string().nullable(),
    outcome: z.enum(RUN_OUTCOMES),
    /** Why, in words (the CLI's error message, the limit reached, …). */
    reason: z.string().nullable(),
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    turns: count.nullable(),
    /** The model the CLI reported (or was given), when known. Absent from runs recorded before it was kept. */
    model: z.string().nullable().default(null),
    inputTokens: count.nullable(),
    outputTokens: count.nullable(),
    /** Prompt tokens read from and written to the provider's cache, where the CLI reports them. */
    cacheReadTokens: count.nullable().default(null),
    cacheWriteTokens: count.nullable().default(null),
    costUsd: z.number().nonnegative().nullable(),
    /** When a paused run may resume (a rate limit's reset, or a backoff); null when it need not wait. */
    resumeAt: isoTimestamp.nullable().default(null),
    /** How many times the deliverable check's violations were handed back to the agent in this run. */
    fixAttempts: count.default(0),
    /** The prompt file this run was given (`command` names it instead of repeating the prompt). */
    promptPath: z.string().nullable().default(null),
    /** The W3C trace id of the run's `invoke_agent` span, when telemetry is on. */
    traceId: z.string().nullable().default(null),
    /** Lifecycle state before and after the run, and whether the agent moved it. */
    stateBefore: nonEmptyString,
    stateAfter: nonEmptyString,
    progressed: z.boolean(),
    /** Whether the agent ran in fed's sandbox (bubblewrap) for this run. */
    sandboxed: z.boolean(),
    /** What the team's sandbox setting allowed beyond the sandbox (SANDBOX_ALLOWANCES), when anything. */
    sandboxAllows: z.array(z.enum(SANDBOX_ALLOWANCE_NAMES)).optional(),
    /** The sandbox's network policy and every host its agent tried; absent when no policy applied (open, unsandboxed). */
    network: networkRunRecordSchema.optional(),
    transcriptPath: nonEmptyString,
    startedAt: isoTimestamp,
    endedAt: isoTimestamp,
  }),
);
export type LaunchRun = z.infer<typeof launchRunSchema>;

/**
 * `<workspace>/.fed/logs/runs.totals.json`: what the run journal's first `bytes` add up to (see
 * src/apps/runs/journal-totals.ts), with the journal's bytes just before that offset (its last 1 KiB or
 * fewer, in base64), so a journal moved aside or rewritten is told from the one added up. A cache:
 * deleting it is safe; one of an older fed (a SHA-256 of those bytes) matches none and is made again.
 */
export const RUNS_TOTALS_FILE = 'runs.totals.json';

const sum = z.number().nonnegative();

export const runsTotalsSchema = builtOnFirstUse(() =>
  z.strictObject({
    bytes: count,
    edge: z
      .string()
      .max(1368)
      .regex(/^[A-Za-z0-9+/]*={0,2}$/),
    totals: z.strictObject({
      runs: count,
      turns: sum.nullable(),
      inputTokens: sum.nullable(),
      outputTokens: sum.nullable(),
      cacheReadTokens: sum.nullable(),
      cacheWriteTokens: sum.nullable(),
      costUsd: sum.nullable(),
      runsWithoutCost: count,
      durationMs: sum,
    }),
  }),
);
export type RunsTotals = z.infer<typeof runsTotalsSchema>;

/** The run in progress: its process (the agent's supervisor, leader of its process group) and session. */
export const currentRunSchema = builtOnFirstUse(() =>
  z.strictObject({
    runId: nonEmptyString,
    preset: z.enum(AGENT_PRESETS),
    command: z.array(z.string()),
    /** Pid of the process-group leader and its start time (/proc/<pid>/stat field 22), so a reused pid is never taken for it. */
    pid: z.number().int().positive(),
    processStart: z.string().nullable(),
    launcherPid: z.number().int().positive(),
    sessionId: z.string().nullable(),
    resumedSessionId: z.string().nullable(),
    stateBefore: nonEmptyString,
    sandboxed: z.boolean(),
    sandboxAllows: z.array(z.enum(SANDBOX_ALLOWANCE_NAMES)).optional(),
    transcriptPath: nonEmptyString,
    /** The prompt file of the run (`command` names it); absent from runs started before it was kept. */
    promptPath: z.string().nullable().default(null),
    startedAt: isoTimestamp,
  }),
);
export type CurrentRun = z.infer<typeof currentRunSchema>;
