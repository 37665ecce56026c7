import type { AgentPreset } from './agent-preset.js';

/**
 * Any other command: run as written, with the launch contract in its
 * environment (`FED_LAUNCH_PROMPT`, `FED_LAUNCH_CONTEXT`, …). A word containing `{prompt}` or
 * `{promptFile}` gets the prompt text or its file path in their place, so a CLI without a preset works
 * without a wrapper script. Stdin is closed; output is plain text.
 */
export const customPreset: AgentPreset = {
  name: 'custom',
  programs: [],
  // Unknown until configured: the config's allow list names its hosts.
  providerHosts: [],
  homeFiles: [],
  stream: 'text',
  resumable: false,
  nativeLimits: { maxTurns: false, maxCostUsd: false },
  command: (run) => ({
    // Replaced by a function: a string replacement would expand `$&`, `$$`… found in the prompt.
    argv: [...run.program, ...run.args].map((word) =>
      word.replaceAll('{promptFile}', () => run.promptFile).replaceAll('{prompt}', () => run.prompt),
    ),
    stdin: null,
    env: {},
    sessionId: null,
  }),
};
