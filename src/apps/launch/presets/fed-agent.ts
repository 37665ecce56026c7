import { DEFAULT_AGENT_COMMAND } from '../../../core/schema/config.js';
import type { AgentPreset } from './agent-preset.js';
import { customPreset } from './custom.js';

/**
 * The built-in agent (`fed-agent`): driven like any other command (the launch contract in its
 * environment, plain text output), under its own name so its runs say which agent did the work.
 */
export const fedAgentPreset: AgentPreset = {
  ...customPreset,
  name: 'fed-agent',
  programs: [DEFAULT_AGENT_COMMAND],
  // fed's own code, no model: it reaches no host.
  providerHosts: [],
  homeFiles: [],
};
