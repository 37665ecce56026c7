import { dirname } from 'node:path';
import { thisHostName } from '../../core/host-name.js';
import { CorruptFileError, InvalidInputError, RefusedError } from '../../core/errors.js';
import { unlinkQuietly, writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { toJsonText } from '../../core/json-text.js';
import { releaseLock } from '../../infra/fs/lock.js';
import { takeDomainLock } from './domain-lock.js';
import { readJsonFile } from '../../infra/fs/read-json-file.js';
import { federationPaths, onboardingPaths, teamWorkspacePath, worktreeBranch } from '../../core/layout.js';
import { onboardingIntentSchema, type OnboardingIntent } from '../../core/schema/onboarding-intent.js';
import { META, teamIdSchema } from '../../core/schema/common.js';
import { zodProblems } from '../../core/schema/problems.js';
import {
  ANY_HOST,
  PLACEMENT_TYPES,
  type PlacementType,
  type Registry,
  type RegistryEntry,
} from '../../core/schema/registry.js';
import { recordFederationEvent, type FederationEvent } from '../federation/federation-journal.js';
import { createWorkspace, removeWorkspace, type CreatedWorkspace } from './placement.js';
import { updateRegistry, type UpdateOptions } from './update-registry.js';
import { settleWorktreeGit, type SettleGitOptions } from './worktree-git.js';
import { prepareTeamWorkspace } from './team-marker.js';
import { readCodebase } from './codebase.js';
import type { Federation } from '../context.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { archetypeFor, archetypes, DEFAULT_ARCHETYPE } from '../archetypes/catalog.js';
import { closest } from '../../core/schema/unknown-keys.js';

export interface OnboardRequest {
  domain: string;
  /** Defaults to `domain`. */
  domainId?: string;
  /** Defaults to DEFAULT_ARCHETYPE (`deliverable`). */
  archetypeId?: string;
  /** Defaults to `directory`. */
  placementType?: PlacementType;
  /**
   * Unplaced: any host's server may run it (registry `host` "*"), whichever has free capacity; else it is
   * placed on this host. A directory team only: a worktree's branch lives in one machine's clone.
   */
  anyHost?: boolean;
}

function checkSlug(what: string, value: string): string {
  const parsed = teamIdSchema.safeParse(value, { reportInput: true });
  if (!parsed.success) throw new InvalidInputError(`${what}: ${zodProblems(parsed.error)[0]?.message ?? 'invalid'}`);
  if (value === META)
    throw new InvalidInputError(`${what}: "${META}" is reserved for the meta coordinator; choose another name`);
  return value;
}

/**
 * Any other slug than fed's archetypes is a custom one, a team without a lifecycle: a typo of one of
 * fed's (`delivrable`) would make such a team silently. One that close is taken for the typo it is.
 */
function refuseNearMiss(archetypeId: string): void {
  if (archetypeFor(archetypeId)) return;
  const ids = archetypes.map((archetype) => archetype.id);
  const meant = closest(archetypeId, ids);
  if (meant)
    throw new InvalidInputError(
      `--archetype: "${archetypeId}" is none of fed's archetypes (${ids.join(', ')}) — did you mean "${meant}"? A custom archetype (a team without a lifecycle) needs a name less like one of fed's`,
    );
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

/**
 * A previous onboarding of this domain that was killed: its intent record, if it left one. A retry and
 * `fed doctor --fix` remove what the record names, so it must name exactly what an onboarding of this
 * domain in this federation creates — a record copied from another federation, or edited, names someone
 * else's folder or branch and is refused as corrupt (kept, never acted on).
 */
export function readOnboardingIntent(root: string, domain: string): OnboardingIntent | undefined {
  const file = onboardingPaths(root, domain).intent;
  const intent = readJsonFile(file, onboardingIntentSchema);
  if (intent === undefined) return undefined;
  const location = teamWorkspacePath(root, domain, intent.placementType);
  const branch = intent.placementType === 'worktree' ? worktreeBranch(domain) : undefined;
  if (intent.domain !== domain || intent.location !== location || intent.branch !== branch) {
    throw new CorruptFileError(
      file,
      `it does not describe an onboarding of team "${domain}" in this federation (expected location ${location}${branch ? ` and branch ${branch}` : ''}, found ${intent.location}${intent.branch ? ` and branch ${intent.branch}` : ''}); fed never removes what it names — check that folder by hand, then remove the record`,
    );
  }
  return intent;
}

/**
 * Finish or undo what a killed onboarding of `intent.domain` left behind; its lock must be held. When it
 * got as far as registering the team, only its intent record is left to remove, and the team is returned;
 * otherwise its workspace (worktree and branch included) is removed and undefined is returned — after
 * the git it may have left running has finished and the locks of a git killed with it are removed.
 */
export async function settleInterruptedOnboarding(
  fed: Federation,
  intent: OnboardingIntent,
  registry: Registry,
  options: SettleGitOptions = {},
): Promise<RegistryEntry | undefined> {
  const { root } = fed;
  const registered = registry.teams.find((t) => t.domain === intent.domain && t.location === intent.location);
  if (!registered) {
    if (intent.branch) await settleWorktreeGit(root, intent.location, intent.branch, options);
    await removeWorkspace(root, intent);
  } else await journalOnboardingOwed(fed.backend, registered);
  unlinkQuietly(onboardingPaths(root, intent.domain).intent);
  return registered;
}

/**
 * The journal record of an onboarding killed after it registered the team and before it journaled that:
 * written now, at the time the team was onboarded — unless the killed run got as far as writing it.
 */
async function journalOnboardingOwed(backend: FederationBackend, team: RegistryEntry): Promise<void> {
  const records = await backend.journal.read();
  const journaled = records.some(
    (r) =>
      r.kind === 'onboarded' && r.team === team.domainId && r.location === team.location && r.at >= team.onboardedAt,
  );
  if (!journaled) await recordFederationEvent(backend, onboardedRecord(team), new Date(team.onboardedAt));
}

function onboardedRecord(team: RegistryEntry): FederationEvent {
  return {
    kind: 'onboarded',
    team: team.domainId,
    archetype: team.archetypeId,
    placement: team.placementType,
    location: team.location,
  };
}

export interface OnboardOptions extends UpdateOptions {
  /** Told what a retry does about a killed onboarding's git: waiting for it, removing its stale locks. */
  onWarning?: (text: string) => void;
}

/**
 * Onboard a team (`fed team onboard`): validate names, create its workspace, then register it. If the
 * registry commit fails (duplicate found by a concurrent onboarding, conflict), the workspace created
 * here is removed again, so no orphan is left behind.
 *
 * A kill -9 can strike anywhere, so the onboarding runs under the domain's onboarding lock and writes
 * an intent record before it creates anything: a retry of the same onboarding finds the record, removes
 * the half-made workspace (or, if the team was registered, just completes) and carries on. A git the
 * killed run left running is waited for first (bounded), and a git lock whose holder is gone is removed.
 */
export async function onboardTeam(
  fed: Federation,
  request: OnboardRequest,
  options: OnboardOptions = {},
): Promise<RegistryEntry> {
  const domain = checkSlug('domain', request.domain);
  const domainId = checkSlug('--id', request.domainId ?? domain);
  const archetypeId = checkSlug('--archetype', request.archetypeId ?? DEFAULT_ARCHETYPE);
  refuseNearMiss(archetypeId);
  const placementType = request.placementType ?? 'directory';
  if (!PLACEMENT_TYPES.includes(placementType)) {
    throw new InvalidInputError(
      `--placement: expected one of ${PLACEMENT_TYPES.join(', ')}, got "${String(placementType)}"`,
    );
  }
  // Any host may run it next: each makes its worktree from its own clone at the team's commit, which must
  // be on the codebase's remote after every launch.
  if (request.anyHost && placementType === 'worktree' && !fed.config.serve?.pushTeamBranches)
    throw new InvalidInputError(
      '--any-host: an unplaced worktree team needs "serve": { "pushTeamBranches": true } in federate.config.json — whichever host runs it next makes its worktree from the commits the last one pushed to the codebase\'s remote; set it (on every host), or drop --any-host, or use --placement directory',
    );
  if (request.anyHost && placementType === 'worktree' && readCodebase(fed.root)?.remote === undefined)
    throw new InvalidInputError(
      `--any-host: an unplaced worktree team's commits go from host to host through the codebase's git remote, and ${fed.root} has none; add it (git remote add origin <url>, and push), or drop --any-host`,
    );

  // One host serves a federation that keeps its registry to itself (files): said, and kept, as a
  // federation moved to a shared backend later (fed migrate) runs it on any host.
  if (request.anyHost && !fed.sharesTeamsAcrossMachines)
    options.onWarning?.(
      '--any-host: this federation keeps its registry in files, where one host serves every team, so the team runs here; it runs on any host once the federation is moved to a shared backend (fed migrate to-jetstream)',
    );
  // The registry of the configured backend: on JetStream it is shared with teams on other machines.
  const { root, backend } = fed;
  const paths = onboardingPaths(root, domain);
  const leftover = readOnboardingIntent(root, domain);
  if (!leftover) refuseDuplicate(await backend.registry.read(), domain, domainId);

  fed.folderForWrite(federationPaths(root).onboarding, undefined, options);
  const lock = await takeDomainLock(
    root,
    domain,
    (holder) =>
      new RefusedError(
        'ONBOARDING_BUSY',
        `team "${domain}" is being onboarded by another process right now (${holder}); wait for it to finish`,
      ),
  );
  try {
    const interrupted = readOnboardingIntent(root, domain);
    if (interrupted) {
      const registered = await settleInterruptedOnboarding(fed, interrupted, await backend.registry.read(), {
        onWarning: options.onWarning,
      });
      // The killed run got as far as registering: the same request is complete; anything else is a duplicate.
      if (
        registered &&
        registered.domainId === domainId &&
        registered.archetypeId === archetypeId &&
        registered.placementType === placementType
      ) {
        return registered;
      }
    }
    refuseDuplicate(await backend.registry.read(), domain, domainId);

    const location = teamWorkspacePath(root, domain, placementType);
    const intent: OnboardingIntent = {
      domain,
      domainId,
      archetypeId,
      placementType,
      location,
      ...(placementType === 'worktree' ? { branch: worktreeBranch(domain) } : {}),
      startedAt: (options.now?.() ?? fed.now()).toISOString(),
    };
    // `.fed/teams` (or `.fed/worktrees`): a link there would put the new workspace outside the root.
    fed.folderForWrite(dirname(location), undefined, options);
    writeFileAtomic(paths.intent, toJsonText(intent), options);
    let workspace: CreatedWorkspace | undefined;
    let registered = false;
    try {
      workspace = await createWorkspace(root, domain, placementType);
      const now = (options.now?.() ?? fed.now()).toISOString();
      // The codebase as it is now (a worktree's branch starts at its head): another host makes the
      // workspace from its own clone at this commit, fetched from this remote when it lacks it.
      const codebase = readCodebase(root);
      const entry: RegistryEntry = {
        domain,
        domainId,
        archetypeId,
        placementType,
        onboardedAt: now,
        location: workspace.location,
        host: request.anyHost ? ANY_HOST : thisHostName(fed.config),
        ...(codebase ? { codebase } : {}),
        status: 'active',
        lastActive: now,
      };
      prepareTeamWorkspace(root, workspace.location, domainId, placementType === 'worktree');
      await backend.signals.provision({ id: domainId, entry }, options);
      await updateRegistry(
        fed,
        (registry) => {
          refuseDuplicate(registry, domain, domainId);
          registry.teams.push(entry);
          return registry;
        },
        options,
      );
      registered = true;
      await recordFederationEvent(backend, onboardedRecord(entry));
      // Last: until the record is gone a retry finds it and completes (exit 0); a kill after this point
      // leaves nothing but a team that is registered, its workspace made and its onboarding journalled.
      unlinkQuietly(paths.intent);
      return entry;
    } catch (error) {
      // Registered, the team is complete and usable: nothing is undone, and the record left makes a retry
      // (or fed doctor --fix) finish.
      if (registered) throw error;
      try {
        await workspace?.remove();
        unlinkQuietly(paths.intent);
      } catch {
        // The intent record stays, so a retry or fed doctor --fix finishes the cleanup; the first error is the one to report.
      }
      throw error;
    }
  } finally {
    releaseLock(lock);
  }
}
