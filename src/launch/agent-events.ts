import { openBackend } from '../backend/open-backend.js';
import { resolve } from 'node:path';
import { isLockHeld } from '../fs/lock.js';
import { RefusedError } from '../errors.js';
import { federationPaths, workspacePaths } from '../layout.js';
import type { FederationConfig } from '../schema/config.js';
import type { RegistryEntry } from '../schema/registry.js';
import { applyLifecycleInputs, loadTeamLifecycle, type ApplyOptions, type ApplyResult } from '../actors/team-lifecycle.js';
import { codebaseChanges, describeCodebaseChanges, recaptureCodebase } from './codebase-guard.js';
import { readBaseline } from './launch-files.js';

/** The spec's failure reason (§3.1) for a deliverable that does not follow the standards. */
export const STRUCTURE_FAILURE = 'document structure cannot be determined';

/**
 * Why a deliverable team's completion cannot be accepted, if it cannot. Checked when the agent reports
 * DOCUMENT_WRITTEN — before `complete`, which is final, is entered:
 * - while a launch runs (it holds the launch lease and left a baseline), the codebase must be as it was
 *   at launch (read-only study);
 * - the document must pass `fed deliverable check` (and `deliverableSchema`, when configured).
 */
export async function completionProblem(root: string, team: RegistryEntry, event: { type: string; path?: unknown }, config: FederationConfig): Promise<string | undefined> {
  if (team.archetypeId !== 'deliverable' || event.type !== 'DOCUMENT_WRITTEN') return undefined;
  // An event the state refuses anyway is refused as such, not judged.
  if (!(await loadTeamLifecycle(team, openBackend(root).lifecycles)).snapshot.can(event)) return undefined;
  const paths = workspacePaths(team.location);
  const baseline = readBaseline(team.location);
  if (baseline && isLockHeld(paths.launchLease, { staleMs: Number.POSITIVE_INFINITY })) {
    const changes = codebaseChanges(baseline, recaptureCodebase(baseline));
    if (changes.length) return describeCodebaseChanges(changes);
  }
  // Loaded on demand: the Markdown parser is the heaviest import, and only completions need it.
  const { checkDeliverable } = await import('../deliverable/check-deliverable.js');
  const { configuredSchema } = await import('../deliverable/federation-deliverable.js');
  const file = resolve(team.location, typeof event.path === 'string' ? event.path : config.deliverable);
  let check;
  try {
    check = checkDeliverable(file, configuredSchema(root, config, federationPaths(root).config));
  } catch (error) {
    return `${STRUCTURE_FAILURE}: ${(error as Error).message}`;
  }
  if (check.ok) {
    const { recordDeliverableMetrics } = await import('../telemetry/deliverable-metrics.js');
    recordDeliverableMetrics(team.domainId, check.summary);
    return undefined;
  }
  const listed = check.violations.slice(0, 10).map((v) => `line ${v.line}: ${v.message}`).join('; ');
  return `${STRUCTURE_FAILURE}: ${check.violations.length} violation(s) in ${file}: ${listed}`;
}

/**
 * An agent's progress report (`fed event`): validated and applied like any event, except that a
 * completion that breaks the team's rules fails the team instead — with the reason — and is refused.
 */
export async function reportAgentEvent(
  root: string,
  team: RegistryEntry,
  event: { type: string; [key: string]: unknown },
  config: FederationConfig,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const problem = await completionProblem(root, team, event, config);
  if (!problem) return applyLifecycleInputs(root, team, [{ source: 'event', event }], options);
  await applyLifecycleInputs(root, team, [{ source: 'event', event: { type: 'FAIL', reason: problem } }], options);
  throw new RefusedError('COMPLETION_REFUSED', `${event.type} refused for team "${team.domainId}": ${problem}; the team has failed`);
}
