import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { describeMs, MAX_TIMER_MS, timerDurationSchema } from './duration.js';
import { builtOnFirstUse, isoTimestamp, nonEmptyString, teamIdSchema } from './common.js';
import { describeValue } from './problems.js';

/**
 * The machines that serve a federation shared across machines (JetStream): each `fed serve` announces its
 * host in the federation's hosts bucket and renews the record every heartbeat, so `fed hosts`, the
 * dashboard and the other servers see which hosts are alive and which were lost (docs/operations.md).
 */

/**
 * A host's name: what the registry records as a team's `host` (its placement), and the key of its record.
 * Host names as systems give them (letters, digits, `-`, `.`) plus `_`: what a JetStream key accepts.
 */
export const HOST_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}$/;

export const hostNameSchema = z.string().refine((name) => HOST_NAME_PATTERN.test(name), {
  error: (issue) =>
    `expected a host name of 1 to 63 letters, digits, "-", "_" or "." (not starting with "-" or "."), got ${describeValue(issue.input)}`,
});

/** How often a server renews its host record unless `serve.heartbeat` says otherwise. */
export const DEFAULT_HEARTBEAT_MS = 5_000;
/** How long taken work of an unplaced team may go unacknowledged unless `serve.workAckWait` says otherwise. */
export const DEFAULT_WORK_ACK_WAIT_MS = 30_000;
/** A host unheard for this many heartbeats is lost, unless `serve.hostLostAfter` says otherwise. */
export const LOST_AFTER_HEARTBEATS = 3;

export const FAILOVER_MODES = ['manual', 'auto'] as const;

/** `serve` in federate.config.json: how this machine serves the federation among others. */
export const serveConfigSchema = z.object({
  /** This machine's name among the hosts (default: the system's host name); teams onboarded here are placed on it. */
  hostName: hostNameSchema.optional(),
  /**
   * How often the server renews its host record (default 5s): at least 100ms, or the server would rewrite
   * it without pause; at most a third of the longest timer, as a host is lost after three of them.
   */
  heartbeat: timerDurationSchema({
    what: 'heartbeat',
    min: { ms: 100, why: 'the server would rewrite its host record almost without pause' },
    max: {
      ms: MAX_TIMER_MS / LOST_AFTER_HEARTBEATS,
      why: `a host is lost after ${LOST_AFTER_HEARTBEATS} heartbeats, and fed waits ${describeMs(MAX_TIMER_MS)} at most`,
    },
  }).optional(),
  /** A host not heard from for this long is lost (default: three heartbeats of that host). */
  hostLostAfter: timerDurationSchema({ what: 'duration' }).optional(),
  /** `"auto"`: a server moves the teams of a lost host to itself; `"manual"` (default): a person runs `fed team move`. */
  failover: z.enum(FAILOVER_MODES).optional(),
  /**
   * How long a server that took an unplaced team's work may go silent before the work is given to another
   * host (default 30s); while its agent runs it says so every third of it.
   */
  workAckWait: timerDurationSchema({
    what: 'wait',
    min: {
      ms: 1_000,
      why: 'the server says it still works on the work every third of it, so a shorter wait would give the work to another host while its agent runs',
    },
  }).optional(),
  /**
   * `true`: after each launch of a worktree team, the server pushes the team's branch to the codebase's
   * remote (the one recorded at onboarding), so another host can make the team's workspace from it. Off by
   * default: fed never pushes unless asked.
   */
  pushTeamBranches: z.boolean().optional(),
});
export type ServeConfig = z.infer<typeof serveConfigSchema>;

/** One host's record in the hosts bucket (key: its name), rewritten by its server every heartbeat. */
export const hostRecordSchema = builtOnFirstUse(() =>
  z.looseObject({
    name: hostNameSchema,
    /** The server's working directory there: where a team moved to this host gets its workspace. */
    root: nonEmptyString.refine(isAbsolute, { error: 'expected an absolute path' }),
    pid: z.number().int().positive(),
    /** The fed version the server runs. */
    version: nonEmptyString,
    /** At most this many agents at once. */
    capacity: z.number().int().positive(),
    /** The teams whose agents run there now. */
    running: z.array(teamIdSchema),
    startedAt: isoTimestamp,
    /** How often the server renews this record (ms): a reader judges it lost after a few of these. */
    heartbeatMs: z.number().int().positive(),
    /** Set when the server stopped on purpose (SIGTERM): the host is stopped, not lost. */
    stoppedAt: isoTimestamp.nullable(),
  }),
);
export type HostRecord = z.infer<typeof hostRecordSchema>;
