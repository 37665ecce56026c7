import { existsSync, mkdirSync } from 'node:fs';
import { InvalidInputError, RefusedError } from '../errors.js';
import { createFileExclusive, writeFileAtomic } from '../fs/atomic-write.js';
import { toJsonText } from '../fs/json-text.js';
import { workspacePaths } from '../layout.js';
import { META, teamIdSchema } from '../schema/common.js';
import { zodProblems } from '../schema/problems.js';
import { PLACEMENT_TYPES, type PlacementType, type Registry, type RegistryEntry } from '../schema/registry.js';
import type { TeamMarker } from '../schema/team-marker.js';
import { createWorkspace } from './placement.js';
import { readRegistry } from './registry-file.js';
import { updateRegistry, type UpdateOptions } from './update-registry.js';

export interface OnboardRequest {
  domain: string;
  /** Defaults to `domain`. */
  domainId?: string;
  /** Defaults to `deliverable`. */
  archetypeId?: string;
  /** Defaults to `directory`. */
  placementType?: PlacementType;
}

export const DEFAULT_ARCHETYPE = 'deliverable';

function checkSlug(what: string, value: string): string {
  const parsed = teamIdSchema.safeParse(value, { reportInput: true });
  if (!parsed.success) throw new InvalidInputError(`${what}: ${zodProblems(parsed.error)[0]?.message ?? 'invalid'}`);
  if (value === META) throw new InvalidInputError(`${what}: "${META}" is reserved for the meta coordinator; choose another name`);
  return value;
}

function refuseDuplicate(registry: Registry, domain: string, domainId: string): void {
  const clash = registry.teams.find((t) => [t.domain, t.domainId].some((name) => name === domain || name === domainId));
  if (clash) {
    throw new RefusedError(
      'DUPLICATE_TEAM',
      `a team named "${clash.domain}" (id "${clash.domainId}") is already registered at ${clash.location}; choose another domain or --id`,
    );
  }
}

/** Signal boxes and the marker that tells commands run inside the workspace which team and federation it is. */
function prepareWorkspace(root: string, location: string, domainId: string, worktree: boolean): void {
  const paths = workspacePaths(location);
  mkdirSync(paths.inbox, { recursive: true });
  mkdirSync(paths.outbox, { recursive: true });
  const marker: TeamMarker = { federationRoot: root, domainId };
  writeFileAtomic(paths.marker, toJsonText(marker));
  // A worktree is its own checkout: keep the team's runtime files out of its git status too.
  if (worktree && !existsSync(`${paths.fedDir}/.gitignore`)) {
    createFileExclusive(`${paths.fedDir}/.gitignore`, '# Runtime files of this fed team workspace.\n*\n');
  }
}

/**
 * Onboard a team (`fed team onboard`): validate names, create its workspace, then register it. If the
 * registry commit fails (duplicate found by a concurrent onboarding, conflict, crash of the write), the
 * workspace created here is removed again, so no orphan is left behind.
 */
export async function onboardTeam(root: string, request: OnboardRequest, options: UpdateOptions = {}): Promise<RegistryEntry> {
  const domain = checkSlug('domain', request.domain);
  const domainId = checkSlug('--id', request.domainId ?? domain);
  const archetypeId = checkSlug('--archetype', request.archetypeId ?? DEFAULT_ARCHETYPE);
  const placementType = request.placementType ?? 'directory';
  if (!PLACEMENT_TYPES.includes(placementType)) {
    throw new InvalidInputError(`--placement: expected one of ${PLACEMENT_TYPES.join(', ')}, got "${String(placementType)}"`);
  }

  refuseDuplicate(readRegistry(root), domain, domainId);

  const workspace = createWorkspace(root, domain, placementType);
  try {
    prepareWorkspace(root, workspace.location, domainId, placementType === 'worktree');
    const now = (options.now?.() ?? new Date()).toISOString();
    const entry: RegistryEntry = {
      domain,
      domainId,
      archetypeId,
      placementType,
      onboardedAt: now,
      location: workspace.location,
      status: 'active',
      lastActive: now,
    };
    await updateRegistry(
      root,
      (registry) => {
        refuseDuplicate(registry, domain, domainId);
        registry.teams.push(entry);
        return registry;
      },
      options,
    );
    return entry;
  } catch (error) {
    workspace.remove();
    throw error;
  }
}
