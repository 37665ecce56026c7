import { join } from 'node:path';
import { workspacePaths } from '../../../core/layout.js';
import type { FederationConfig } from '../../../core/schema/config.js';
import type { LaunchContext } from '../../../core/schema/launch-context.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import { playbookSkillPath } from './launch-prompt.js';

/** Where a launch context comes from: the federation, and the lifecycle's state and mission. */
export interface ContextSource {
  root: string;
  config: FederationConfig;
  state: string;
  mission: LaunchContext['mission'];
  /** The run's CLI gets fed's MCP server (mcp-server.ts). */
  mcpServer?: boolean;
}

/**
 * What a launched agent is told about its run (the launch context file). Built from the registry, the
 * config and the lifecycle — never read back from the workspace, which the agent can write.
 */
export function launchContext(
  team: RegistryEntry,
  { root, config, state, mission, mcpServer = false }: ContextSource,
): LaunchContext {
  const paths = workspacePaths(team.location);
  return {
    team: team.domainId,
    archetype: team.archetypeId,
    root,
    workspace: team.location,
    codebase: team.placementType === 'worktree' ? team.location : root,
    mission,
    state,
    deliverable: config.deliverable,
    deliverablePath: join(team.location, config.deliverable),
    playbookSkillPath: playbookSkillPath(root, config),
    learningLogPath: paths.learningLog,
    launchedAt: new Date().toISOString(),
    ...(mcpServer ? { mcpServer } : {}),
  };
}
