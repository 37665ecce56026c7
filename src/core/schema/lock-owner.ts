import { z } from 'zod';
import { isoTimestamp, nonEmptyString } from './common.js';

/**
 * The content of every lock and lease file fed takes (`src/infra/fs/lock.ts`): who holds it. `pid` and
 * `startTime` together name one process for the life of the machine — a pid alone is reused after its
 * process exits — so a waiter can tell a holder that is merely slow (alive: never taken over) from one
 * that is gone. `startTime` is the process start time in clock ticks since boot (`/proc/<pid>/stat`
 * field 22), absent where the platform does not expose it. `token` is unique per acquisition: a holder
 * checks it before it commits, so a writer that lost its lock never overwrites the next holder's work.
 * `host` is the machine's system host name, by which a waiter knows whether it can check the process;
 * `name` is what the holder goes by, where that is not the machine's name (a `fed serve`'s host name).
 */
export const lockOwnerSchema = z.object({
  pid: z.number().int().positive(),
  host: nonEmptyString,
  token: nonEmptyString,
  acquiredAt: isoTimestamp,
  startTime: z.string().regex(/^\d+$/).optional(),
  name: nonEmptyString.optional(),
});
export type LockOwner = z.infer<typeof lockOwnerSchema>;
