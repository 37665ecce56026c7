import { classifyError } from './classify-error.js';
import { mcpConfigJson } from './mcp-config.js';
import { add, flag, num, obj, str, type AgentPreset, type JsonEvent } from './agent-preset.js';

/**
 * GitHub Copilot CLI: `copilot -p <prompt> --output-format json --allow-all --no-ask-user` (`--allow-all`:
 * every tool, path and URL — nothing would answer a prompt for one), resumed with `--resume <id>`. It
 * has no turn cap outside autopilot mode, so the launcher counts `assistant.message` events. The stream
 * ends with `result{sessionId, exitCode, usage}`: the session id, and a verdict — exit code 0 completed,
 * anything else what the last `session.error{errorType, message}` said, else a crash. No token totals but
 * each assistant message's `outputTokens`. Without a login 1.0.102 exits 1, silent on stdout, with "Error:
 * No authentication information found." on stderr: `auth` (run-outcome.ts; older releases exited 0 with
 * no output at all, which ends `no-progress`). fed's MCP server comes in a JSON file of the run's (`--additional-mcp-config @<file>`:
 * this session only, beside the user's servers).
 */
const sessionIdOf = (event: JsonEvent): string | null =>
  str(event.sessionId) ?? str(event.session_id) ?? str(obj(event.data).sessionId) ?? str(obj(event.data).session_id);

/** A field of an event, at its top level or in its `data`. */
const field = (event: JsonEvent, name: string): unknown => event[name] ?? obj(event.data)[name];

export const copilotPreset: AgentPreset = {
  name: 'copilot',
  programs: ['copilot'],
  // GitHub's Copilot API and the GitHub API it signs in with (reads HTTPS_PROXY).
  providerHosts: ['api.githubcopilot.com', '*.githubcopilot.com', 'api.github.com'],
  homeFiles: ['.copilot/config.json'],
  stream: 'json',
  resumable: true,
  nativeLimits: { maxTurns: false, maxCostUsd: false },
  takesMcp: true,
  cli: {
    versionArgs: ['--version'],
    helps: [
      {
        args: ['--help'],
        flags: [
          '-p',
          '--output-format',
          '--allow-all',
          '--no-ask-user',
          '--model',
          '--resume',
          '--additional-mcp-config',
        ],
      },
    ],
    install: 'npm install -g @github/copilot',
  },
  command: (run) => ({
    argv: [
      ...run.program,
      '-p',
      run.prompt,
      '--output-format',
      'json',
      '--allow-all',
      '--no-ask-user',
      ...flag('--model', run.model),
      ...flag('--resume', run.resumeSessionId),
      ...(run.mcp ? ['--additional-mcp-config', `@${run.mcp.configFile}`] : []),
      ...run.args,
    ],
    stdin: null,
    env: {},
    sessionId: null,
    files: run.mcp ? { [run.mcp.configFile]: mcpConfigJson(run.mcp, { tools: ['*'] }) } : {},
  }),
  onEvent(event, stats) {
    stats.sessionId = sessionIdOf(event) ?? stats.sessionId;
    const type = str(event.type) ?? '';
    if (type === 'assistant.message') {
      stats.turns = (stats.turns ?? 0) + 1;
      stats.outputTokens = add(stats.outputTokens, num(field(event, 'outputTokens')));
    } else if (type.endsWith('error')) {
      const kind = str(field(event, 'errorType'));
      const message = str(field(event, 'message')) ?? type;
      stats.error = classifyError(kind ? `${kind}: ${message}` : message);
    } else if (type === 'result') {
      const exitCode = num(field(event, 'exitCode'));
      if (exitCode === 0) stats.final = { outcome: 'completed', message: null };
      else if (exitCode !== null)
        stats.final = stats.error ?? { outcome: 'crashed', message: `copilot ended with exit code ${exitCode}` };
      else stats.final = stats.error ?? { outcome: 'completed', message: null };
    } else if (type === 'session.end') stats.final = stats.error ?? { outcome: 'completed', message: null };
  },
};
