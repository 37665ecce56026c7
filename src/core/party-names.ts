/**
 * The names of a federation's parties, with no imports: errors.ts words its hints with them, and every
 * schema takes them from schema/common.ts, which re-exports them.
 */

/** The identifier of the meta coordinator; reserved, so no team can take it. */
export const META = 'meta';

/**
 * Team domains and ids are used as directory names and git branch names, so they are safe slugs:
 * lowercase ASCII letters and digits in hyphen-separated runs, at most 64 characters.
 */
export const TEAM_ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
