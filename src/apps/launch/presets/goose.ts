import { classifyError } from './classify-error.js';
import { flag, num, obj, str, type AgentPreset } from './agent-preset.js';

/**
 * Goose: `goose run -i <prompt file> --output-format stream-json` in auto mode (`GOOSE_MODE=auto`), turn
 * cap `--max-turns`. Goose resumes a session by name, so the launcher names it (`-n fed-<team>-…`) and
 * that name is the session id; a resume is `--resume -n <name>`. Events: `message` (assistant messages
 * are turns), `error`, `complete` (token total).
 */
export const goosePreset: AgentPreset = {
  name: 'goose',
  programs: ['goose'],
  stream: 'json',
  resumable: true,
  nativeLimits: { maxTurns: true, maxCostUsd: false },
  command: (run) => {
    const name = run.resumeSessionId ?? run.newSessionName;
    return {
      argv: [
        ...run.program,
        'run',
        '-i',
        run.promptFile,
        '-n',
        name,
        ...(run.resumeSessionId ? ['--resume'] : []),
        '--output-format',
        'stream-json',
        ...flag('--max-turns', run.limits.maxTurns),
        ...run.args,
      ],
      stdin: null,
      env: { GOOSE_MODE: 'auto', ...(run.model ? { GOOSE_MODEL: run.model } : {}) },
      sessionId: name,
    };
  },
  onEvent(event, stats) {
    if (event.type === 'message' && obj(event.message).role === 'assistant') stats.turns = (stats.turns ?? 0) + 1;
    else if (event.type === 'error')
      stats.error = classifyError(str(event.error) ?? str(obj(event.error).message) ?? 'error');
    else if (event.type === 'complete') {
      stats.final = stats.error ?? { outcome: 'completed', message: null };
      stats.inputTokens = num(event.input_tokens) ?? stats.inputTokens;
      stats.outputTokens = num(event.output_tokens) ?? stats.outputTokens;
    }
  },
};
