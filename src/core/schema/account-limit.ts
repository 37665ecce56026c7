import { z } from 'zod';
import { builtOnFirstUse, isoTimestamp, nonEmptyString } from './common.js';

/**
 * `.fed/launch/accounts/<account>.json` at the federation root: a rate limit one team met on a CLI
 * account (`agent.account`, default the preset's name), until it resets. Every team on that account
 * shares it: a launch before `resumeAt` does not start the agent, it pauses the team until then, so the
 * teams resume together. A file whose `resumeAt` has passed means nothing (it is
 * replaced when the account meets its next limit).
 */
export const ACCOUNT_LIMITS_DIR = 'accounts';

export const accountLimitSchema = builtOnFirstUse(() =>
  z.strictObject({
    account: nonEmptyString,
    /** When the limit resets (the CLI's `resetsAt`, or the time its error text named). */
    resumeAt: isoTimestamp,
    /** The team whose run met the limit, and that run. */
    team: nonEmptyString,
    runId: nonEmptyString,
    /** What the CLI said. */
    reason: z.string().nullable(),
    recordedAt: isoTimestamp,
  }),
);
export type AccountLimit = z.infer<typeof accountLimitSchema>;
