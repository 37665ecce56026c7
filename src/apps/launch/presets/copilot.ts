import { classifyError } from './classify-error.js';
import { flag, obj, str, type AgentPreset, type JsonEvent } from './agent-preset.js';

/**
 * GitHub Copilot CLI: `copilot -p <prompt> --allow-all-tools --no-ask-user --output-format json`,
 * resumed with `--resume <id>`; a turn cap is `--max-autopilot-continues`. Its JSON lines are typed
 * (`session.start`, `assistant.message`, `session.error`, …); the session id is read wherever an event
 * carries one. It has exited 0 with no output on broken auth: such a run ends `no-progress`.
 */
const sessionIdOf = (event: JsonEvent): string | null =>
  str(event.sessionId) ?? str(event.session_id) ?? str(obj(event.data).sessionId) ?? str(obj(event.data).session_id);

export const copilotPreset: AgentPreset = {
  name: 'copilot',
  programs: ['copilot'],
  stream: 'json',
  resumable: true,
  nativeLimits: { maxTurns: true, maxCostUsd: false },
  command: (run) => ({
    argv: [
      ...run.program,
      '-p',
      run.prompt,
      '--allow-all-tools',
      '--no-ask-user',
      '--output-format',
      'json',
      ...flag('--max-autopilot-continues', run.limits.maxTurns),
      ...flag('--model', run.model),
      ...flag('--resume', run.resumeSessionId),
      ...run.args,
    ],
    stdin: null,
    env: {},
    sessionId: null,
  }),
  onEvent(event, stats) {
    stats.sessionId = sessionIdOf(event) ?? stats.sessionId;
    const type = str(event.type) ?? '';
    if (type === 'assistant.message') stats.turns = (stats.turns ?? 0) + 1;
    else if (type.endsWith('error'))
      stats.error = classifyError(str(event.message) ?? str(obj(event.data).message) ?? type);
    else if (type === 'result' || type === 'session.end')
      stats.final = stats.error ?? { outcome: 'completed', message: null };
  },
};
