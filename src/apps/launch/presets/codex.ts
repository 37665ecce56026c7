import { classifyError } from './classify-error.js';
import { add, flag, num, obj, str, type AgentPreset, type McpServer } from './agent-preset.js';

/**
 * OpenAI Codex: `codex exec --json --sandbox workspace-write --skip-git-repo-check -` with the prompt on
 * stdin — or, inside fed's own bubblewrap sandbox (which confines it already, and in which Codex's own
 * sandbox cannot nest), `--dangerously-bypass-approvals-and-sandbox`. `--full-auto` is gone: current Codex
 * rejects it ("unexpected argument"). A resume is `codex exec resume <thread_id> …` with the sandbox flags
 * again (whether a resume inherits them is not documented). Events: `thread.started` (the session id),
 * `item.completed` (one agent step: counted as a turn), `turn.completed` (token usage),
 * `turn.failed` / `error`. Codex reports no cost and takes no turn cap: the launcher counts. fed's MCP
 * server comes as `-c mcp_servers.fed.…` overrides (TOML values; Codex has no file flag, and `codex mcp
 * add` would edit the user's config): a server gets only the variables Codex passes by default and those
 * named, so what it inherits is listed in `env_vars`.
 */
export const codexPreset: AgentPreset = {
  name: 'codex',
  programs: ['codex'],
  stream: 'json',
  resumable: true,
  nativeLimits: { maxTurns: false, maxCostUsd: false },
  takesMcp: true,
  cli: {
    versionArgs: ['--version'],
    helpArgs: ['exec', '--help'],
    helpFlags: ['--json', '--sandbox', '--dangerously-bypass-approvals-and-sandbox', '--skip-git-repo-check', '-m'],
    install: 'npm install -g @openai/codex',
  },
  command: (run) => ({
    argv: [
      ...run.program,
      'exec',
      ...(run.resumeSessionId ? ['resume', run.resumeSessionId] : []),
      ...(run.mcp ? codexMcpOverrides(run.mcp) : []),
      '--json',
      ...(run.sandboxed ? ['--dangerously-bypass-approvals-and-sandbox'] : ['--sandbox', 'workspace-write']),
      '--skip-git-repo-check',
      ...flag('-m', run.model),
      ...run.args,
      '-',
    ],
    stdin: run.prompt,
    env: {},
    sessionId: null,
  }),
  onEvent(event, stats) {
    switch (event.type) {
      case 'thread.started':
        stats.sessionId = str(event.thread_id) ?? stats.sessionId;
        break;
      case 'item.completed':
        stats.turns = (stats.turns ?? 0) + 1;
        break;
      case 'turn.completed': {
        const usage = obj(event.usage);
        stats.inputTokens = add(stats.inputTokens, num(usage.input_tokens));
        stats.outputTokens = add(stats.outputTokens, num(usage.output_tokens));
        stats.cacheReadTokens = add(stats.cacheReadTokens, num(usage.cached_input_tokens));
        stats.final = { outcome: 'completed', message: null };
        break;
      }
      case 'turn.failed':
        stats.final = classifyError(str(obj(event.error).message) ?? 'turn failed');
        break;
      case 'error':
        stats.error = classifyError(str(event.message) ?? 'error');
        break;
    }
  },
};

/** `-c` overrides that give Codex the server for this run; values are TOML (a JSON string is a TOML string). */
function codexMcpOverrides(server: McpServer): string[] {
  const key = `mcp_servers.${server.name}`;
  const env = Object.entries(server.env).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return [
    ['command', JSON.stringify(server.command)],
    ['args', JSON.stringify(server.args)],
    ['env', `{${env.join(',')}}`],
    ...(server.inherit.length ? [['env_vars', JSON.stringify(server.inherit)]] : []),
  ].flatMap(([field, value]) => ['-c', `${key}.${field}=${value}`]);
}
