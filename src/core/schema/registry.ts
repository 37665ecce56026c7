import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { RefusedError } from '../errors.js';
import { isoTimestamp, nonEmptyString, teamIdSchema } from './common.js';

/** `.fed/team-registry.json` (docs/design/spec.md §2.4). Managed by fed; never edited by hand. */
export const REGISTRY_FILE = 'team-registry.json';

export const TEAM_STATUSES = ['active', 'paused', 'archived'] as const;
export const teamStatusSchema = z.enum(TEAM_STATUSES);
export type TeamStatus = z.infer<typeof teamStatusSchema>;

export const PLACEMENT_TYPES = ['directory', 'worktree'] as const;
export const placementTypeSchema = z.enum(PLACEMENT_TYPES);
export type PlacementType = z.infer<typeof placementTypeSchema>;

/**
 * The revision of what registrySchema accepts, part of the digest fed keeps of the last large registry
 * text it validated (src/adapters/file/registry-validation.ts): a fed whose schema accepts less must not
 * trust a text an older one validated. Bump it with any change to the schemas below;
 * test/unit/registry/registry-schema-revision.test.ts fails on a change of their shape until it is bumped.
 */
export const REGISTRY_SCHEMA_REVISION = 3;

/**
 * The registry `host` of an unplaced team (`fed team onboard --any-host`): whichever host has free capacity
 * runs it. No host is named so (host names start with a letter, digit or `_`).
 */
export const ANY_HOST = '*';

/**
 * The codebase a team works on, recorded at onboarding when it is a git repository, so another host can make
 * the team's workspace from its own clone: `commit` is the commit the team worked on (a worktree team's
 * branch head after its last launch; a directory team's codebase head at onboarding), `remote` the URL of
 * the codebase's remote then (its branch's upstream, else `origin`, else its only remote), absent when it had none.
 */
export const teamCodebaseSchema = z.looseObject({
  commit: z.string().regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/, { error: 'expected a full git commit id' }),
  remote: nonEmptyString.optional(),
});
export type TeamCodebase = z.infer<typeof teamCodebaseSchema>;

export const registryEntrySchema = z.looseObject({
  domain: teamIdSchema,
  domainId: teamIdSchema,
  archetypeId: nonEmptyString,
  placementType: placementTypeSchema,
  onboardedAt: isoTimestamp,
  location: nonEmptyString.refine(isAbsolute, { error: 'expected an absolute path' }),
  /**
   * The machine the workspace is on (its host name), for federations whose teams work on several machines
   * (the JetStream backend): `location` is a path on that machine. Absent in registries written before it.
   * `"*"` (ANY_HOST): unplaced — any host's server may run it; `location` is where it last ran.
   */
  host: nonEmptyString.optional(),
  /** Absent for a codebase that is no git repository, and in registries written before it. */
  codebase: teamCodebaseSchema.optional(),
  status: teamStatusSchema.optional(),
  lastActive: isoTimestamp.optional(),
});
export type RegistryEntry = z.infer<typeof registryEntrySchema>;

/**
 * A team is found by its id or its domain, and its workspace is named after its domain, so no name is
 * another entry's id or domain (onboarding refuses it: DUPLICATE_TEAM). A registry with an entry twice —
 * edited by hand, merged by git — would list the team twice and act on whichever comes first: it is
 * reported as corrupt, naming both entries, and never rewritten.
 */
function refuseNamedTwice(
  teams: ReadonlyArray<Pick<RegistryEntry, 'domain' | 'domainId'>>,
  ctx: z.RefinementCtx,
): void {
  const firstWith = new Map<string, number>();
  teams.forEach((team, index) => {
    for (const name of new Set([team.domainId, team.domain])) {
      const first = firstWith.get(name);
      if (first === undefined) firstWith.set(name, index);
      else if (first !== index) {
        ctx.addIssue({
          code: 'custom',
          path: [index],
          message: `team "${name}" is registered twice (teams[${first}] and teams[${index}]); with no fed command running, remove the entry that is not the team's`,
        });
        return;
      }
    }
  });
}

/** Unknown keys are kept (loose objects) so a newer fed's additions survive a write by an older one. */
export const registrySchema = z.looseObject({
  lastUpdated: isoTimestamp,
  lockVersion: z.number().int().nonnegative(),
  teams: z.array(registryEntrySchema).superRefine(refuseNamedTwice),
});
export type Registry = z.infer<typeof registrySchema>;

/**
 * The `lockVersion` a commit writes. Past the largest safe integer the number would no longer be exact (and
 * the schema refuses it as corrupt), so the commit is refused before anything is written.
 */
export function nextLockVersion(expectedVersion: number, location: string): number {
  if (expectedVersion >= Number.MAX_SAFE_INTEGER)
    throw new RefusedError(
      'REGISTRY_VERSION_EXHAUSTED',
      `the registry's lockVersion is ${expectedVersion}, the largest exact integer, and cannot be raised by another write (${location}); with no fed command running, set lockVersion to 0 in it`,
    );
  return expectedVersion + 1;
}

/** The registry of a federation with no teams yet, as `fed init` creates it on any backend. */
export function emptyRegistry(now = new Date()): Registry {
  return { lastUpdated: now.toISOString(), lockVersion: 0, teams: [] };
}
