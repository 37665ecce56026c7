import { z } from 'zod';
import { builtOnFirstUse, isoTimestamp, teamIdSchema } from './common.js';

/**
 * `.fed/team-activity.jsonl`: the teams' recent activity (docs/design/spec.md §2.4 `lastActive`), one line
 * per refresh, appended instead of rewriting the registry. Readers of the registry take each team's latest
 * line as its `lastActive` when it is later; the next registry write folds the lines into the registry and
 * starts the file again (src/adapters/file/team-activity-file.ts).
 */
export const TEAM_ACTIVITY_FILE = 'team-activity.jsonl';

export const teamActivityLineSchema = builtOnFirstUse(() =>
  z.strictObject({
    team: teamIdSchema,
    at: isoTimestamp,
  }),
);
export type TeamActivityLine = z.infer<typeof teamActivityLineSchema>;
