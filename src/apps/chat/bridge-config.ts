import type { ValidationProblem } from '../../core/errors.js';
import { DEFAULT_AGENT_COMMAND, type FederationConfig } from '../../core/schema/config.js';

/** The chat bridge answers to `@<federationName>` (docs/design/spec.md §7: it throws without one). */
export function federationNameProblem(config: FederationConfig, configFile: string): ValidationProblem | undefined {
  if (config.federationName) return undefined;
  return {
    path: 'federationName',
    message: `required by the chat bridge: it is the @handle the bridge answers to in the chat channel; add "federationName": "<name>" to ${configFile}`,
  };
}

/** The agent-host channel needs a host with a chat tool; the built-in agent has none. */
export function chatHostProblem(config: FederationConfig): ValidationProblem | undefined {
  if (!config.chatConfig || config.chatConfig.command || config.agentCommand !== DEFAULT_AGENT_COMMAND)
    return undefined;
  return {
    path: 'chatConfig.command',
    message: `the chat channel needs an agent host with a chat tool, and the built-in agent ${DEFAULT_AGENT_COMMAND} has none; set chatConfig.command (or agentCommand) in federate.config.json to one — see "Chat" in docs/operations.md`,
  };
}
