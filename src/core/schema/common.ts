import { z } from 'zod';
import { TEAM_ID_PATTERN } from '../party-names.js';
import { describeValue } from './problems.js';

// Declared in machines/ (a pure layer that imports nothing from src/); every other schema takes them from here.
export { isoTimestamp, nonEmptyString } from '../../../machines/schema-primitives.js';

/**
 * A format only some commands read, built when it is first parsed instead of when its module loads: every
 * command loads every schema module (src/core/layout.ts names their files), and before the code is warm zod
 * takes ~40 µs per schema it builds — the formats a `fed event` never reads cost it 2–4 ms.
 */
export function builtOnFirstUse<T extends z.ZodType>(build: () => T): z.ZodLazy<T> {
  return z.lazy(build);
}

// The parties' names live where errors.ts can word its hints with them; every schema takes them from here.
export { META, TEAM_ID_PATTERN } from '../party-names.js';

/** An id that names a folder or a branch (a team's, a schedule's): a slug of at most 64 characters. */
export function slugIdSchema(what: string, example: string) {
  return z
    .string({ error: (issue) => `expected ${what}, got ${describeValue(issue.input)}` })
    .max(64, { error: 'expected at most 64 characters' })
    .regex(TEAM_ID_PATTERN, {
      error: (issue) =>
        `expected a slug of lowercase letters, digits and single hyphens (like "${example}"), got ${describeValue(issue.input)}`,
    });
}

export const teamIdSchema = slugIdSchema('a team id', 'docs-team');
