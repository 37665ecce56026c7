import { classifyError } from './classify-error.js';
import { add, flag, num, obj, str, type AgentPreset, type McpServer } from './agent-preset.js';
import { opencodeRateLimitWait } from './opencode-log.js';

/**
 * OpenCode: `opencode run --format json <message>` with every permission allowed through
 * `OPENCODE_PERMISSION`, resumed with `-s <id>`. Events carry `sessionID`; each `step_finish` is a turn
 * with its tokens (input, output and reasoning, cache read and write) and cost, summed over the run, and
 * the run completed when the last one ends with `reason: "stop"` (a step that ends in tool calls goes
 * on); provider errors come as `error` events, with exit 0 in releases before opencode#26955. A rate
 * limit it waits out says nothing on stdout: its own log does (opencode-log.ts). fed's MCP server comes
 * in `OPENCODE_CONFIG_CONTENT`, which OpenCode merges over its config files.
 */
export const opencodePreset: AgentPreset = {
  name: 'opencode',
  programs: ['opencode'],
  // Its provider is whichever it is configured with: none until the config's allow list names it.
  providerHosts: [],
  homeFiles: ['.local/share/opencode/auth.json'],
  stream: 'json',
  resumable: true,
  nativeLimits: { maxTurns: false, maxCostUsd: false },
  takesMcp: true,
  cli: {
    versionArgs: ['--version'],
    helps: [{ args: ['run', '--help'], flags: ['--format', '-m', '-s'] }],
    install: 'npm install -g opencode-ai',
  },
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
    env: {
      OPENCODE_PERMISSION: '{"*":"allow"}',
      ...(run.mcp ? { OPENCODE_CONFIG_CONTENT: opencodeMcpConfig(run.mcp) } : {}),
    },
    sessionId: null,
  }),
  // A rate limit it waits out in silence (an hour, if the provider's retry-after says so): after a
  // minute fed ends the run as rate-limited, resumed later, and holds the account's other teams.
  silentWait: { afterMs: 60_000, verdict: opencodeRateLimitWait },
  waitsOutRateLimitsMs: 60_000,
  onEvent(event, stats) {
    stats.sessionId = str(event.sessionID) ?? stats.sessionId;
    if (event.type === 'step_finish') {
      const part = obj(event.part);
      const tokens = obj(part.tokens);
      stats.turns = (stats.turns ?? 0) + 1;
      const cache = obj(tokens.cache);
      stats.inputTokens = add(stats.inputTokens, num(tokens.input));
      // Reasoning tokens are billed as output.
      stats.outputTokens = add(add(stats.outputTokens, num(tokens.output)), num(tokens.reasoning));
      stats.cacheReadTokens = add(stats.cacheReadTokens, num(cache.read));
      stats.cacheWriteTokens = add(stats.cacheWriteTokens, num(cache.write));
      stats.costUsd = add(stats.costUsd, num(part.cost));
      stats.final = part.reason === 'stop' ? { outcome: 'completed', message: null } : null;
    } else if (event.type === 'error') {
      const error = obj(event.error);
      stats.error = classifyError(str(obj(error.data).message) ?? str(error.message) ?? str(error.name) ?? 'error');
    }
  },
};

/** OpenCode's `mcp` entry for the server: a local command, its environment under `environment`. */
function opencodeMcpConfig(server: McpServer): string {
  return JSON.stringify({
    mcp: {
      [server.name]: {
        type: 'local',
        command: [server.command, ...server.args],
        environment: server.env,
        enabled: true,
      },
    },
  });
}
