import { RefusedError } from '../../core/errors.js';
import { workspacePaths } from '../../core/layout.js';
import type { FederationConfig } from '../../core/schema/config.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { applyLifecycleInputs, loadTeamLifecycle } from '../../engine/actors/team-lifecycle.js';
import type { ApplyOptions, ApplyResult } from '../../engine/actors/lifecycle-types.js';
import type { Refusal } from '../../engine/archetypes/archetype.js';
import { archetypeOf } from '../../engine/archetypes/catalog.js';
import type { Federation } from '../../engine/context.js';
import { isLockHeld } from '../../infra/fs/lock.js';
import { recordRefusedCompletion } from './refused-completion.js';

/**
 * Why an agent's event cannot be accepted under its archetype's completion policy, if it cannot (a
 * deliverable that fails the standards). An event the state refuses anyway is refused as such, not judged.
 */
export async function completionProblem(
  fed: Federation,
  team: RegistryEntry,
  event: { type: string; [key: string]: unknown },
  config: FederationConfig,
): Promise<Refusal | undefined> {
  const { root } = fed;
  const { judge } = archetypeOf(team).completion;
  // Most events are progress, not a completion: they are not judged, and the lifecycle is loaded once (to apply them).
  if (!judge?.events.includes(event.type)) return undefined;
  const { snapshot } = await loadTeamLifecycle(team, fed.backend.lifecycles);
  if (!snapshot.can(event)) return undefined;
  return judge.check({ root, team, event, config, snapshot });
}

/**
 * An agent's progress report (`fed event`): validated and applied like any event, except a completion
 * that breaks the team's rules, which is refused. While a launch runs, the refusal is recorded for the
 * launcher, and a slip the agent can fix (a deliverable that misses the standards) leaves the team as it
 * is: the agent fixes it and sends the event again — or, once it exits, the launcher hands it the
 * violations. Otherwise (no launch, or a broken rule) the team fails with the reason.
 */
export async function reportAgentEvent(
  fed: Federation,
  team: RegistryEntry,
  event: { type: string; [key: string]: unknown },
  config: FederationConfig,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const refusal = await completionProblem(fed, team, event, config);
  if (!refusal) return applyLifecycleInputs(fed, team, [{ source: 'event', event }], options);
  const launched = isLockHeld(workspacePaths(team.location).launchLease, { staleMs: Number.POSITIVE_INFINITY });
  if (launched)
    recordRefusedCompletion(fed, team, { event: event.type, ...refusal, refusedAt: fed.now().toISOString() });
  if (launched && refusal.fixable) {
    throw new RefusedError(
      'COMPLETION_REFUSED',
      `${event.type} refused for team "${team.domainId}": ${refusal.reason}; the team goes on: fix what it names and send ${event.type} again`,
    );
  }
  await applyLifecycleInputs(
    fed,
    team,
    [{ source: 'event', event: { type: 'FAIL', reason: refusal.reason } }],
    options,
  );
  throw new RefusedError(
    'COMPLETION_REFUSED',
    `${event.type} refused for team "${team.domainId}": ${refusal.reason}; the team has failed`,
  );
}
