import { isLockHeld } from '../fs/lock.js';
import { RefusedError } from '../errors.js';
import { workspacePaths } from '../layout.js';
import type { RegistryEntry } from '../schema/registry.js';
import { applyLifecycleInputs, type ApplyOptions, type ApplyResult } from '../actors/team-lifecycle.js';
import { captureCodebase, codebaseChanges, describeCodebaseChanges } from './codebase-guard.js';
import { readBaseline } from './launch-files.js';

/**
 * Why a deliverable team's completion cannot be accepted, if it cannot: while a launch runs (it holds the
 * team's lease and left a baseline), the codebase must be as it was at launch. Checked when the agent
 * reports DOCUMENT_WRITTEN — before `complete`, which is final, is entered.
 */
export function completionProblem(team: RegistryEntry, event: { type: string }): string | undefined {
  if (team.archetypeId !== 'deliverable' || event.type !== 'DOCUMENT_WRITTEN') return undefined;
  const paths = workspacePaths(team.location);
  const baseline = readBaseline(team.location);
  if (!baseline || !isLockHeld(paths.launchLease, { staleMs: Number.POSITIVE_INFINITY })) return undefined;
  const changes = codebaseChanges(baseline, captureCodebase(baseline.codebase));
  return changes.length ? describeCodebaseChanges(changes) : undefined;
}

/**
 * An agent's progress report (`fed event`): validated and applied like any event, except that a
 * completion that breaks the team's rules fails the team instead — with the reason — and is refused.
 */
export async function reportAgentEvent(
  root: string,
  team: RegistryEntry,
  event: { type: string; [key: string]: unknown },
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const problem = completionProblem(team, event);
  if (!problem) return applyLifecycleInputs(root, team, [{ source: 'event', event }], options);
  await applyLifecycleInputs(root, team, [{ source: 'event', event: { type: 'FAIL', reason: problem } }], options);
  throw new RefusedError('COMPLETION_REFUSED', `${event.type} refused for team "${team.domainId}": ${problem}; the team has failed`);
}
