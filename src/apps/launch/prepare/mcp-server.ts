import { join } from 'node:path';
import { backendEnvNames } from '../../../adapters/index.js';
import { workspacePaths } from '../../../core/layout.js';
import type { FederationConfig } from '../../../core/schema/config.js';
import type { LaunchContext } from '../../../core/schema/launch-context.js';
import { BROKER_ENV, BROKER_TOKEN_ENV } from '../../../infra/process/broker-protocol.js';
import type { AgentPreset, McpServer } from '../presets/agent-preset.js';

/**
 * Whether this run's agent gets fed's MCP server: its CLI takes one per run and `agent.mcp` is not false.
 * The launch prompt says so, and points it to the `fed_*` tools before the shell commands.
 */
export function mcpWired(preset: AgentPreset, config: FederationConfig): boolean {
  return preset.takesMcp === true && config.agent.mcp !== false;
}

/**
 * `fed mcp` as the team's agent runs it: the `fed` shim on its PATH (src/apps/launch/supervise/command-shims.ts,
 * written when the agent starts), so inside the sandbox it goes through the launcher's broker like the
 * agent's other fed commands; FED_ROOT and FED_TEAM make it the team's whatever directory the CLI starts
 * it in. The broker and its token (sandboxed) or the backend's variables (not) are inherited, never written down.
 */
export function fedMcpServer(
  context: LaunchContext,
  config: FederationConfig,
  preset: AgentPreset,
  sandboxed: boolean,
): McpServer | null {
  if (!mcpWired(preset, config)) return null;
  const paths = workspacePaths(context.workspace);
  return {
    name: 'fed',
    command: join(paths.launchBin, 'fed'),
    args: ['mcp'],
    env: {
      FED_ROOT: context.root,
      FED_TEAM: context.team,
    },
    // The broker inherited too: a sandbox with a network policy reaches it on its loopback, not at its socket.
    inherit: sandboxed ? [BROKER_ENV, BROKER_TOKEN_ENV] : backendEnvNames(config),
    strict: config.agent.mcp === 'strict',
    configFile: join(paths.launch, `mcp-${preset.name}.json`),
  };
}
