import { RefusedError } from '../../core/errors.js';
import type { FederationConfig } from '../../core/schema/config.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { applyLifecycleInputs, loadTeamLifecycle } from '../../engine/actors/team-lifecycle.js';
import type { ApplyOptions, ApplyResult } from '../../engine/actors/lifecycle-types.js';
import { archetypeOf } from '../../engine/archetypes/catalog.js';
import type { Federation } from '../../engine/context.js';

/**
 * Why an agent's event cannot be accepted under its archetype's completion policy, if it cannot (a
 * deliverable that fails the standards). An event the state refuses anyway is refused as such, not judged.
 */
export async function completionProblem(
  fed: Federation,
  team: RegistryEntry,
  event: { type: string; [key: string]: unknown },
  config: FederationConfig,
): Promise<string | undefined> {
  const { root } = fed;
  const { judge } = archetypeOf(team).completion;
  // Most events are progress, not a completion: they are not judged, and the lifecycle is loaded once (to apply them).
  if (!judge?.events.includes(event.type)) return undefined;
  const { snapshot } = await loadTeamLifecycle(team, fed.backend.lifecycles);
  if (!snapshot.can(event)) return undefined;
  return judge.check({ root, team, event, config, snapshot });
}

/**
 * An agent's progress report (`fed event`): validated and applied like any event, except that a
 * completion that breaks the team's rules fails the team instead — with the reason — and is refused.
 */
export async function reportAgentEvent(
  fed: Federation,
  team: RegistryEntry,
  event: { type: string; [key: string]: unknown },
  config: FederationConfig,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const problem = await completionProblem(fed, team, event, config);
  if (!problem) return applyLifecycleInputs(fed, team, [{ source: 'event', event }], options);
  await applyLifecycleInputs(fed, team, [{ source: 'event', event: { type: 'FAIL', reason: problem } }], options);
  throw new RefusedError(
    'COMPLETION_REFUSED',
    `${event.type} refused for team "${team.domainId}": ${problem}; the team has failed`,
  );
}
