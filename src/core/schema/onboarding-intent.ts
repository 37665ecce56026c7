import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { builtOnFirstUse, isoTimestamp, nonEmptyString, teamIdSchema } from './common.js';
import { PLACEMENT_TYPES } from './registry.js';

/**
 * `.fed/onboarding/<domain>.json`: written (durably) by `fed team onboard` before it creates anything,
 * removed once the team is registered. A process killed in between leaves it behind, and it is how a
 * retry — or `fed doctor --fix` — recognises the workspace, worktree and branch as fed's own half-made
 * onboarding, to finish or remove, rather than someone's folder to leave alone. The onboarding itself
 * is serialised by the lock `.fed/onboarding/<domain>.lock`, so a live onboarding is never mistaken
 * for a crashed one.
 */
export const ONBOARDING_DIR = 'onboarding';

export const onboardingIntentSchema = builtOnFirstUse(() =>
  z.object({
    domain: teamIdSchema,
    domainId: teamIdSchema,
    archetypeId: teamIdSchema,
    placementType: z.enum(PLACEMENT_TYPES),
    location: nonEmptyString.refine(isAbsolute, { error: 'expected an absolute path' }),
    /** The git branch of a worktree placement. */
    branch: nonEmptyString.optional(),
    startedAt: isoTimestamp,
  }),
);
export type OnboardingIntent = z.infer<typeof onboardingIntentSchema>;
