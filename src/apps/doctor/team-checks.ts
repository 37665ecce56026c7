import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { lifecycleFor } from '../../engine/archetypes/catalog.js';
import { CorruptFileError, FedError, RefusedError } from '../../core/errors.js';
import { describeLockOwner, inspectLock, releaseLock } from '../../infra/fs/lock.js';
import { takeDomainLock } from '../../engine/registry/domain-lock.js';
import { readJsonFile } from '../../infra/fs/read-json-file.js';
import {
  federationPaths,
  onboardingPaths,
  teamWorkspacePath,
  workspacePaths,
  worktreeBranch,
} from '../../core/layout.js';
import { loadTeamLifecycle, settleTeamLifecycle } from '../../engine/actors/team-lifecycle.js';
import { owedEffects } from '../../engine/actors/lifecycle-effects.js';
import { findTeam, statusOf } from '../../core/find-team.js';
import { readOnboardingIntent, settleInterruptedOnboarding } from '../../engine/registry/onboard.js';
import { removeWorkspace } from '../../engine/registry/placement.js';
import { describeGits, settleWorktreeGit, worktreeGitLeftovers } from '../../engine/registry/worktree-git.js';
import { relocatedWorkspace } from '../../adapters/index.js';
import { updateRegistry } from '../../engine/registry/update-registry.js';
import { writeTeamMarker } from '../../engine/registry/team-marker.js';
import type { OnboardingIntent } from '../../core/schema/onboarding-intent.js';
import type { PlacementType, Registry, RegistryEntry } from '../../core/schema/registry.js';
import { teamMarkerSchema, type TeamMarker } from '../../core/schema/team-marker.js';
import type { PendingFinding } from '../../ports/doctor-finding.js';
import type { Federation } from '../../engine/context.js';
import { unreadableFix } from './unreadable-fix.js';

/**
 * Run `fn` holding the onboarding lock of `domain`, so a repair never races an onboarding that just started;
 * one that runs now is left alone (the repair is refused, not waited for: the onboarding may take long).
 */
async function underOnboardingLock(root: string, domain: string, fn: () => unknown): Promise<void> {
  const lock = await takeDomainLock(
    root,
    domain,
    (holder) =>
      new RefusedError(
        'ONBOARDING_BUSY',
        `left alone: team "${domain}" is being onboarded by another process right now (${holder}); run fed doctor again once it has finished`,
      ),
  );
  try {
    await fn();
  } finally {
    releaseLock(lock);
  }
}

function onboardingRunning(root: string, domain: string): boolean {
  return inspectLock(onboardingPaths(root, domain).lock, { staleMs: Number.POSITIVE_INFINITY })?.holder === 'alive';
}

/** Onboardings a kill interrupted: their intent records, and what they left. Returns the findings and the workspaces they account for. */
export function checkOnboardings(
  fed: Federation,
  registry: Registry,
): { findings: PendingFinding[]; accounted: Set<string> } {
  const { root } = fed;
  const findings: PendingFinding[] = [];
  const accounted = new Set<string>();
  const dir = federationPaths(root).onboarding;
  const names = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.json')) : [];
  for (const name of names) {
    const path = join(dir, name);
    let intent: OnboardingIntent | undefined;
    try {
      intent = readOnboardingIntent(root, name.slice(0, -'.json'.length));
    } catch (error) {
      if (!(error instanceof FedError)) throw error;
      findings.push({
        check: 'onboarding',
        path,
        problem: error.message,
        fix: unreadableFix(error, 'remove the file by hand, then check the team workspaces below'),
      });
      continue;
    }
    if (!intent) continue;
    accounted.add(intent.location);
    // A retry that completed since the record was read removed it: nothing to report.
    if (onboardingRunning(root, intent.domain) || !existsSync(path)) continue;
    const registered = registry.teams.some((t) => t.domain === intent.domain && t.location === intent.location);
    const settle = () => underOnboardingLock(root, intent.domain, () => settleOnboardingAgain(fed, intent.domain));
    findings.push(
      registered
        ? {
            check: 'onboarding',
            team: intent.domainId,
            path,
            problem: `the onboarding of team "${intent.domainId}" was interrupted after it registered the team; its intent record is left`,
            fix: 'remove the record (fed doctor --fix); the team is complete',
            repair: settle,
          }
        : {
            check: 'onboarding',
            team: intent.domainId,
            path,
            problem:
              `the onboarding of team "${intent.domainId}" was interrupted before it registered the team; it left ` +
              (intent.branch
                ? `worktree ${intent.location} and branch ${intent.branch}`
                : `workspace ${intent.location}`) +
              (intent.branch ? gitLeftoversText(root, intent.location, intent.branch) : ''),
            fix: `remove them (fed doctor --fix), or finish the onboarding by running it again: fed team onboard ${intent.domain}`,
            repair: settle,
          },
    );
  }
  return { findings, accounted };
}

/**
 * The repair of an interrupted onboarding, under its lock: what the check saw may be stale by now — a retry
 * of the onboarding may have completed it (registered the team, removed the record) or failed and left
 * another record — so the record and the registry are read again, and only what they say now is settled.
 * Nothing left to settle is left alone: the registered team's workspace is never removed.
 */
async function settleOnboardingAgain(fed: Federation, domain: string): Promise<void> {
  const intent = readOnboardingIntent(fed.root, domain);
  if (intent) await settleInterruptedOnboarding(fed, intent, await fed.backend.registry.read());
}

/**
 * Folders in `.fed/teams/` and `.fed/worktrees/` that no registered team owns. One carrying fed's marker
 * for this federation was made by an onboarding killed before it registered (fed before intent records);
 * anything else is not fed's and is only reported. A link — `.fed/teams` itself or a folder in it — is
 * never followed: what it points to is not fed's to remove.
 *
 * `registry` was read before the scan: an onboarding that registered its team since (its lock released
 * before the scan looked) would pass for a killed one, so a folder is only reported once a registry read
 * after the scan has no team for it either, and its repair checks again under the onboarding lock.
 */
export async function checkOrphanWorkspaces(
  fed: Federation,
  registry: Registry,
  accounted: ReadonlySet<string>,
): Promise<PendingFinding[]> {
  const { root } = fed;
  const paths = federationPaths(root);
  // A copied federation's own workspaces are claimed by the teams whose locations still name the old root,
  // and a team's own workspace by the team even when its location names another folder (a workspace finding).
  const registered = new Set(
    registry.teams.flatMap((t) =>
      [t.location, teamWorkspacePath(root, t.domain, t.placementType), relocatedWorkspace(root, t) ?? []].flat(),
    ),
  );
  const findings: PendingFinding[] = [];
  const orphans: { location: string; name: string; marker: TeamMarker; placementType: PlacementType }[] = [];
  for (const [parent, placementType] of [
    [paths.teams, 'directory'],
    [paths.worktrees, 'worktree'],
  ] as const) {
    if (!existsSync(parent)) continue;
    if (isLink(parent)) {
      findings.push(linkedFolder(parent));
      continue;
    }
    for (const name of readdirSync(parent)) {
      const location = join(parent, name);
      if (registered.has(location) || accounted.has(location) || onboardingRunning(root, name)) continue;
      if (isLink(location)) {
        findings.push(linkedFolder(location));
        continue;
      }
      const marker = readMarkerQuietly(location);
      if (marker && sameDir(marker.federationRoot, root) && !findTeam(registry, marker.domainId)) {
        orphans.push({ location, name, marker, placementType });
        continue;
      }
      findings.push({
        check: 'orphan-workspace',
        path: location,
        problem: `${location} belongs to no registered team and was not made by fed for this federation`,
        fix: `move it out of ${parent} (its name blocks onboarding a team "${name}")`,
      });
    }
  }
  if (orphans.length === 0) return findings;
  const now = await fed.backend.registry.read();
  for (const orphan of orphans) {
    if (ownedNow(root, now, orphan)) continue;
    const { location, name, marker, placementType } = orphan;
    const branch = placementType === 'worktree' ? worktreeBranch(name) : undefined;
    findings.push({
      check: 'orphan-workspace',
      team: marker.domainId,
      path: location,
      problem: `${location} was made by an onboarding of "${marker.domainId}" that never registered the team (it was killed)${branch ? gitLeftoversText(root, location, branch) : ''}`,
      fix: `remove it${branch ? ` and branch ${branch}` : ''} (fed doctor --fix), then onboard again: fed team onboard ${name}`,
      repair: () =>
        underOnboardingLock(root, name, async () => {
          // An onboarding may have registered the team, or been killed again (its record is the onboarding
          // check's), since the check: under the lock none can start, so this is the last look.
          if (ownedNow(root, await fed.backend.registry.read(), orphan)) return;
          if (branch) await settleWorktreeGit(root, location, branch);
          await removeWorkspace(root, { location, placementType, branch });
        }),
    });
  }
  return findings;
}

/**
 * A folder with fed's marker is someone's after all: a team is registered at it or under its marker's id,
 * or an onboarding of its name left an intent record (the onboarding check's to settle).
 */
function ownedNow(
  root: string,
  registry: Registry,
  orphan: { location: string; name: string; marker: TeamMarker },
): boolean {
  return (
    findTeam(registry, orphan.marker.domainId) !== undefined ||
    registry.teams.some((t) => t.location === orphan.location) ||
    existsSync(onboardingPaths(root, orphan.name).intent)
  );
}

function isLink(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
}

function linkedFolder(path: string): PendingFinding {
  return {
    check: 'orphan-workspace',
    path,
    problem: `${path} is a symbolic link; fed makes workspaces there itself and does not follow links`,
    fix: `replace the link with a folder (move what it points to out of fed's way), then run fed doctor again`,
  };
}

/** What the git of a killed onboarding left on its worktree: still running, or its stale locks (named; `--fix` waits for it, then removes them). */
function gitLeftoversText(root: string, location: string, branch: string): string {
  const { running, locks } = worktreeGitLeftovers(root, location, branch);
  if (running?.length)
    return `; ${describeGits(running)} is still working on it (fed doctor --fix waits for it to finish)`;
  if (locks.length === 0) return '';
  return running
    ? `; stale git locks its killed git left: ${locks.join(', ')} (fed doctor --fix removes them)`
    : `; git lock files: ${locks.join(', ')}`;
}

/** What to do about a team's workspace fed refuses (the problem says why, and so, in its words, does this). */
function workspaceFix(code: string, team: string): string {
  const archive = `archive the team: fed team archive ${team}`;
  switch (code) {
    case 'WORKSPACE_SYMLINK':
      return 'replace the link with the real directory (or remove it and restore the workspace), then run fed doctor again';
    case 'WORKSPACE_NOT_ITS_OWN':
      return `restore the team's location in the registry to the workspace fed made for it, or ${archive}`;
    case 'WORKSPACE_OUTSIDE_ROOT':
      return `move the workspace below the federation root and run fed doctor --fix, or ${archive}`;
    default:
      return `restore the workspace, or ${archive}`;
  }
}

/**
 * A registered team: its workspace (inside the root, no links), its marker, and its lifecycle state. A team
 * of a federation shared across machines that works in another working directory is checked there; here
 * only its state (shared too), and that a workspace registered on this host is still there. `elsewhere` is
 * the note saying so.
 */
export async function checkTeam(
  fed: Federation,
  entry: RegistryEntry,
): Promise<{ findings: PendingFinding[]; workspaceOk: boolean; linked?: boolean; elsewhere?: string }> {
  const { root } = fed;
  try {
    fed.workspace(entry);
  } catch (error) {
    if (!(error instanceof FedError)) throw error;
    if (error.code === 'TEAM_ELSEWHERE') return checkTeamElsewhere(fed, entry);
    const relocated = error.code === 'WORKSPACE_OUTSIDE_ROOT' ? relocatedWorkspace(root, entry) : undefined;
    // An archived team is history: nothing is written for it any more, and its workspace may have been
    // cleared away or left behind in the federation this one was copied from. One this copied or moved
    // federation has is relocated all the same, so that fed team remove deletes it, not the original's.
    if (statusOf(entry) === 'archived' && !relocated) return { findings: [], workspaceOk: false };
    const finding: PendingFinding = {
      check: 'workspace',
      team: entry.domainId,
      path: entry.location,
      problem: error.message,
      fix: relocated
        ? `point the registry at ${relocated} and its marker at this federation (fed doctor --fix)`
        : workspaceFix(error.code, entry.domainId),
    };
    if (relocated) finding.repair = () => relocate(fed, entry, relocated);
    return { findings: [finding], workspaceOk: false, linked: error.code === 'WORKSPACE_SYMLINK' };
  }
  const findings: PendingFinding[] = [];
  const markerFile = workspacePaths(entry.location).marker;
  let marker: TeamMarker | undefined;
  let markerProblem: string | undefined;
  try {
    marker = readJsonFile(markerFile, teamMarkerSchema);
    if (!marker) markerProblem = 'is missing';
    else if (!sameDir(marker.federationRoot, root) || marker.domainId !== entry.domainId) {
      markerProblem = `names team "${marker.domainId}" of the federation at ${marker.federationRoot}`;
    }
  } catch (error) {
    if (!(error instanceof FedError)) throw error;
    // A corrupt marker is rewritten by --fix: its problem, not the reader's advice never to overwrite it.
    markerProblem =
      error instanceof CorruptFileError ? `is corrupt (${error.problem})` : `is unreadable (${error.message})`;
  }
  if (markerProblem && marker !== undefined && marker.domainId !== entry.domainId) {
    // Another team's marker: rewriting it would hand that team's workspace to this one.
    findings.push({
      check: 'marker',
      team: entry.domainId,
      path: markerFile,
      problem: `the team marker of "${entry.domainId}" ${markerProblem}; the workspace may be that team's, and commands run inside it would act on the wrong team`,
      fix: `find out whose workspace ${entry.location} is; fed doctor --fix never rewrites another team's marker — if it is "${entry.domainId}"'s, rewrite the marker by hand, otherwise archive the team: fed team archive ${entry.domainId}`,
    });
  } else if (markerProblem) {
    findings.push({
      check: 'marker',
      team: entry.domainId,
      path: markerFile,
      problem: `the team marker of "${entry.domainId}" ${markerProblem}; commands run inside the workspace would act on the wrong team or federation`,
      fix: 'rewrite it for this team and federation (fed doctor --fix)',
      repair: () => writeTeamMarker(root, entry.location, entry.domainId),
    });
  }
  findings.push(...(await checkState(fed, entry)));
  return { findings, workspaceOk: true };
}

async function checkTeamElsewhere(
  fed: Federation,
  entry: RegistryEntry,
): Promise<{ findings: PendingFinding[]; workspaceOk: false; elsewhere: string }> {
  const findings = statusOf(entry) === 'archived' ? [] : await checkState(fed, entry);
  const host = entry.host ?? 'an unrecorded host';
  // Another checkout on this very machine can be looked at: a registered workspace that is gone is a problem.
  if (entry.host === hostname() && statusOf(entry) !== 'archived' && !existsSync(entry.location)) {
    findings.push({
      check: 'workspace',
      team: entry.domainId,
      path: entry.location,
      problem: `the workspace of team "${entry.domainId}" is registered on this host (${host}) at ${entry.location}, which does not exist`,
      fix: `restore that working directory, or archive the team: fed team archive ${entry.domainId}`,
    });
  }
  return {
    findings,
    workspaceOk: false,
    elsewhere: `${entry.domainId} works in another working directory (${entry.location} on ${host}): its workspace, marker and locks are checked by fed doctor there; its lifecycle state was checked here`,
  };
}

/**
 * The team's lifecycle state is usable (file or JetStream entry), and nothing its last write owes is left
 * undone (journal lines, reports to meta: a command killed between the write and them).
 */
async function checkState(fed: Federation, entry: RegistryEntry): Promise<PendingFinding[]> {
  const { backend } = fed;
  if (!lifecycleFor(entry.archetypeId)) return [];
  try {
    const owedNow = async () =>
      statusOf(entry) === 'archived' ? [] : owedEffects(fed, entry, await loadTeamLifecycle(entry, backend.lifecycles));
    let owed = await owedNow();
    if (owed.length === 0) return [];
    // A command performs what its write owes in the section it wrote in: while a live process holds it,
    // that is a write in progress, not a killed one's leftovers. Once it is free, what was owed is looked
    // at again — the first look may have caught a command that has finished since.
    if (await backend.lifecycles.sectionHolder(entry)) return [];
    owed = await owedNow();
    if (owed.length === 0) return [];
    return [
      {
        check: 'state',
        team: entry.domainId,
        path: backend.lifecycles.envelopeLocation(entry),
        problem: `the last lifecycle write of "${entry.domainId}" still owes ${owed.join(', ')} (the command that made it was killed)`,
        fix: "perform them, each once (fed doctor --fix; any command that applies the team's signals does too)",
        repair: async () => {
          // Never waited for: a command that took the section since performs them itself.
          const holder = await backend.lifecycles.sectionHolder(entry);
          if (holder)
            throw new RefusedError(
              'TEAM_BUSY',
              `left alone: a command holds the lifecycle of "${entry.domainId}" right now (${describeLockOwner(holder.owner)}) and performs them itself; run fed doctor again once it has finished`,
            );
          const warnings = await settleTeamLifecycle(fed, entry);
          if (warnings.length) throw new Error(warnings.join('; '));
        },
      },
    ];
  } catch (error) {
    if (!(error instanceof FedError)) throw error;
    return [
      {
        check: 'state',
        team: entry.domainId,
        path: backend.lifecycles.envelopeLocation(entry),
        problem: error.message,
        fix: unreadableFix(
          error,
          `restore the file from a backup or fix it by hand (fed never resets a state file); or archive the team: fed team archive ${entry.domainId}`,
        ),
      },
    ];
  }
}

/** The federation was copied or moved: its teams' locations and markers still name the old root. */
async function relocate(fed: Federation, entry: RegistryEntry, location: string): Promise<void> {
  const { root } = fed;
  await updateRegistry(fed, (registry) => {
    const team = registry.teams.find((t) => t.domainId === entry.domainId);
    if (!team || team.location !== entry.location) return undefined;
    team.location = location;
    return registry;
  });
  writeTeamMarker(root, location, entry.domainId);
}

function readMarkerQuietly(location: string): TeamMarker | undefined {
  try {
    return readJsonFile(workspacePaths(location).marker, teamMarkerSchema);
  } catch {
    return undefined;
  }
}

function sameDir(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
