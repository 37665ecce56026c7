import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { nonEmptyString, teamIdSchema } from './common.js';

/**
 * `<workspace>/.fed/team.json`, written at onboarding. A team workspace has its own `.fed/` (and a git
 * worktree may even hold a committed `federate.config.json`), so commands run inside it find the
 * federation root and their own team id through this marker instead of guessing from the folder.
 */
export const TEAM_MARKER_FILE = 'team.json';

export const teamMarkerSchema = z.object({
  federationRoot: nonEmptyString.refine(isAbsolute, { error: 'expected an absolute path' }),
  domainId: teamIdSchema,
});
export type TeamMarker = z.infer<typeof teamMarkerSchema>;
