import { join } from 'node:path';
import { workspacePaths } from '../../../core/layout.js';
import type { FederationConfig } from '../../../core/schema/config.js';
import type { LaunchContext } from '../../../core/schema/launch-context.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import { playbookSkillPath } from './launch-prompt.js';

/**
 * What a launched agent is told about its run (the launch context file). Built from the registry, the
 * config and the lifecycle — never read back from the workspace, which the agent can write. `mcpServer`:
 * the run's CLI gets fed's MCP server (src/apps/launch/prepare/mcp-server.ts).
 */
export function launchContext(
  root: string,
  team: RegistryEntry,
  config: FederationConfig,
  state: string,
  mission: LaunchContext['mission'],
  mcpServer = false,
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
