import type { Mission } from '../../../../machines/lifecycle-context.js';
import { stateOf } from '../../../engine/actors/state-of.js';
import { lifecycleEntryFor } from '../../../engine/actors/team-lifecycle.js';
import type { TeamLifecycle } from '../../../engine/actors/lifecycle-types.js';
import { RefusedError } from '../../../core/errors.js';
import { statusOf } from '../../../core/find-team.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import type { Launch } from '../launch.js';
import type { LaunchOptions } from '../launch-options.js';
import { runsBuiltInAgent } from './agent-command.js';
import { refuseAgentHome } from './sandbox/agent-home.js';
import { configuredNetworkPolicy } from './sandbox/host-policy.js';
import { unsandboxedPolicy } from './sandbox/network-refusal.js';
import { teamSandboxSetting } from './sandbox/sandbox-setting.js';

/**
 * What refuses a launch before anything is prepared (the `refusing` phase): a team paused or archived,
 * or without a lifecycle fed knows, as the registry has it; then, once its inbox is applied, a lifecycle
 * over, paused, waiting for someone else or without a mission.
 */
export function refuseUnlaunchable(team: RegistryEntry): void {
  const status = statusOf(team);
  if (status === 'paused')
    throw new RefusedError(
      'TEAM_PAUSED',
      `team "${team.domainId}" is paused; resume it first: fed team resume ${team.domainId}`,
    );
  if (status === 'archived')
    throw new RefusedError('TEAM_ARCHIVED', `team "${team.domainId}" is archived; archived teams are not launched`);
  lifecycleEntryFor(team);
}

/**
 * A team's sandbox settings that cannot be honoured, refused before anything is made for the launch or its
 * lifecycle moves (the mission is applied only once the launch holds its leases): with the sandbox, an
 * `agent.home` that would put the agent's writable home where it must never write; without it, a network
 * policy the config sets (docs/threat-model.md: never a silent fall-back to an open network).
 */
export function refuseSandboxSettings(root: string, team: RegistryEntry, options: LaunchOptions): void {
  const { agent } = options.config;
  const setting = teamSandboxSetting(agent, team.domainId);
  if (setting.enabled) return refuseAgentHome(root, team, agent, options.env ?? process.env);
  // Without the sandbox the agent has the machine's network: a policy set for it would be silently dropped
  // (the default is the sandbox's, not set for it). The built-in agent, fed's own code, opens no connection.
  const configured = configuredNetworkPolicy(agent, team.domainId);
  if (configured && configured.policy !== 'open' && !runsBuiltInAgent(root, team, options))
    throw unsandboxedPolicy(team.domainId, configured.policy, configured.field, setting.from);
}

/** What the checks found: the lifecycle the launch starts from, its state and mission. */
export interface LaunchReady {
  lifecycle: TeamLifecycle;
  stateBefore: string;
  mission: Mission;
}

/** A launch needs work to do: a lifecycle not over, not paused, not waiting for someone else, with a mission. */
export function refuseWithoutWork(launch: Launch, lifecycle: TeamLifecycle): LaunchReady {
  const { team, archetype } = launch;
  const stateBefore = stateOf(lifecycle.snapshot);
  if (lifecycle.snapshot.status !== 'active') {
    throw new RefusedError(
      'LIFECYCLE_FINAL',
      `team "${team.domainId}" is already ${stateBefore}; its lifecycle is over — ${stateBefore === 'failed' ? `start a new run with: fed team retry ${team.domainId}` : `for new work send it a new mission (fed signal send --to ${team.domainId} --type directive …), then: fed run --team ${team.domainId}`}`,
    );
  }
  if (stateBefore === 'paused')
    throw new RefusedError(
      'TEAM_PAUSED',
      `team "${team.domainId}" is paused; resume it first: fed team resume ${team.domainId}`,
    );
  const waiting = archetype.completion.settled(lifecycle.snapshot, team);
  if (waiting?.outcome === 'waiting') {
    throw new RefusedError(
      'NOTHING_TO_DO',
      `team "${team.domainId}" is ${stateBefore} and has nothing to do until then: ${waiting.next}`,
    );
  }
  const { mission } = lifecycle.snapshot.context;
  if (!mission) {
    throw new RefusedError(
      'NO_MISSION',
      `team "${team.domainId}" has no mission yet; send one first: fed signal send --to ${team.domainId} --type directive --subject "<mission>" --body "<details>"`,
    );
  }
  return { lifecycle, stateBefore, mission };
}
