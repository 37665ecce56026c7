import { RefusedError } from '../../../core/errors.js';
import { workspacePaths } from '../../../core/layout.js';
import type { FederationConfig } from '../../../core/schema/config.js';
import { assertEventDataWithinLimit } from '../../../core/schema/event-data.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import { applyLifecycleInputs, loadTeamLifecycle } from '../../../engine/actors/team-lifecycle.js';
import type { ApplyOptions, ApplyResult } from '../../../engine/actors/lifecycle-types.js';
import type { Refusal } from '../../../engine/archetypes/archetype.js';
import { archetypeOf } from '../../../engine/archetypes/catalog.js';
import { getTeam } from '../../../core/find-team.js';
import type { Federation } from '../../../engine/context.js';
import { isLockHeld } from '../../../infra/fs/lock.js';
import { openAgentInspection } from '../../../infra/inspect/agent-inspection.js';
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
  assertEventDataWithinLimit(event);
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

/**
 * `reportAgentEvent` as `fed event` runs it for a launched agent: when the launch is inspected (the relay
 * file `env` names), the transitions go to the launcher's inspection log too. A relay that cannot be
 * closed is a warning (`warn`), never the event's failure.
 */
export async function reportInspectedEvent(
  fed: Federation,
  team: RegistryEntry,
  event: { type: string; [key: string]: unknown },
  config: FederationConfig,
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): Promise<ApplyResult> {
  const inspection = openAgentInspection(env);
  try {
    return await reportAgentEvent(fed, team, event, config, { inspect: inspection?.observe });
  } finally {
    try {
      inspection?.close();
    } catch (error) {
      warn((error as Error).message);
    }
  }
}

/** What `fed event` prints for an applied event: the transition, or that the state stayed. */
export function eventLine(team: string, type: string, result: ApplyResult): string {
  const line = result.steps[0]?.line;
  return line && line.from !== line.to
    ? `${team}: ${line.from} → ${line.to} (${type})\n`
    : `${team}: ${type} recorded, still ${result.state}\n`;
}

/**
 * The launcher's side of its agent's event requests (agent-broker.ts): each applied as `fed event` run as
 * the team (`FED_TEAM` = `team`, with the launch's environment `env`) applies it — the team as the
 * registry has it now, the same checks, journal lines and reports to meta — and answered with what that
 * command prints. There is no team to name: an agent reports its own team's progress only.
 */
export function teamEventApplier(
  fed: Federation,
  team: string,
  config: FederationConfig,
  env: NodeJS.ProcessEnv,
): (event: { type: string; data: Record<string, unknown> }) => Promise<{ stdout: string; warnings: string[] }> {
  return async ({ type, data }) => {
    const entry = getTeam(await fed.backend.registry.read(), team);
    const warnings: string[] = [];
    const result = await reportInspectedEvent(fed, entry, { ...data, type }, config, env, (warning) =>
      warnings.push(warning),
    );
    return { stdout: eventLine(entry.domainId, type, result), warnings: [...warnings, ...result.warnings] };
  };
}
