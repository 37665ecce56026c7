import { classifyError } from './classify-error.js';
import { flag, type AgentPreset } from './agent-preset.js';

/**
 * Aider: `aider --message-file <prompt file> --yes-always --no-auto-commits`. Text output only, no
 * session to resume, and exit 0 on fatal API errors — so its lines are read for the provider's error
 * names (litellm's `RateLimitError`, `AuthenticationError`, …) and the lifecycle decides the rest.
 */
const ERROR_LINE = /(RateLimitError|AuthenticationError|PermissionDeniedError|APIError|BudgetExceeded\w*)\b.*/;

export const aiderPreset: AgentPreset = {
  name: 'aider',
  programs: ['aider'],
  // Its provider is whichever model it is given (litellm): none until the config's allow list names it.
  providerHosts: [],
  homeFiles: ['.aider.conf.yml'],
  stream: 'text',
  resumable: false,
  nativeLimits: { maxTurns: false, maxCostUsd: false },
  cli: {
    versionArgs: ['--version'],
    helps: [{ args: ['--help'], flags: ['--message-file', '--yes-always', '--no-auto-commits', '--model'] }],
    install: 'python -m pip install aider-install && aider-install',
  },
  command: (run) => ({
    argv: [
      ...run.program,
      '--message-file',
      run.promptFile,
      '--yes-always',
      '--no-auto-commits',
      ...flag('--model', run.model),
      ...run.args,
    ],
    stdin: null,
    env: {},
    sessionId: null,
  }),
  onText(line, stats) {
    const match = ERROR_LINE.exec(line);
    if (match) stats.error = classifyError(match[0]);
  },
};
