import { classifyError } from './classify-error.js';
import { add, flag, num, obj, str, type AgentPreset } from './agent-preset.js';

/**
 * OpenCode: `opencode run --format json <message>` with every permission allowed through
 * `OPENCODE_PERMISSION`, resumed with `-s <id>`. Events carry `sessionID`; each `step_finish` is a turn
 * with its tokens and cost; provider errors come as `error` events while the exit code stays 0.
 */
export const opencodePreset: AgentPreset = {
  name: 'opencode',
  programs: ['opencode'],
  stream: 'json',
  resumable: true,
  nativeLimits: { maxTurns: false, maxCostUsd: false },
  command: (run) => ({
    argv: [
      ...run.program,
      'run',
      '--format',
      'json',
      ...flag('-m', run.model),
      ...flag('-s', run.resumeSessionId),
      ...run.args,
      run.prompt,
    ],
    stdin: null,
    env: { OPENCODE_PERMISSION: '{"*":"allow"}' },
    sessionId: null,
  }),
  onEvent(event, stats) {
    stats.sessionId = str(event.sessionID) ?? stats.sessionId;
    if (event.type === 'step_finish') {
      const part = obj(event.part);
      const tokens = obj(part.tokens);
      stats.turns = (stats.turns ?? 0) + 1;
      stats.inputTokens = add(stats.inputTokens, num(tokens.input));
      stats.outputTokens = add(stats.outputTokens, num(tokens.output));
      stats.costUsd = add(stats.costUsd, num(part.cost));
    } else if (event.type === 'error') {
      const error = obj(event.error);
      stats.error = classifyError(str(obj(error.data).message) ?? str(error.message) ?? str(error.name) ?? 'error');
    }
  },
};
