import { classifyError } from './classify-error.js';
import { add, flag, num, obj, str, type AgentPreset, type McpServer } from './agent-preset.js';

/**
 * OpenAI Codex: `codex exec --json -c sandbox_mode="workspace-write" --skip-git-repo-check -` with the
 * prompt on stdin — or, inside fed's own bubblewrap sandbox (which confines it already, and in which
 * Codex's own sandbox cannot nest), `--dangerously-bypass-approvals-and-sandbox`. Codex's sandbox is chosen
 * with `-c sandbox_mode=…`, not `--sandbox`: the real 0.169.0's `exec resume` has no `--sandbox` and exits 2
 * on it, while the config key parses on both. `--full-auto` is gone: current Codex rejects it ("unexpected
 * argument"). A resume is `codex exec resume <thread_id> …`. Events: `thread.started` (the session id),
 * `item.completed` (one agent step: counted as a turn, but for its warnings, which are items too),
 * `turn.completed` (token usage: its input counts cached tokens too, which fed counts apart),
 * `turn.failed` / `error`. Codex reports no cost and takes no turn cap: the launcher counts. fed's MCP
 * server comes as `-c mcp_servers.fed.…` overrides (TOML values; Codex has no file flag, and `codex mcp
 * add` would edit the user's config): a server gets only the variables Codex passes by default and those
 * named, so what it inherits is listed in `env_vars`; and its tools need no approval — outside its own
 * sandbox Codex refuses every MCP call that would ("requires approval, but approval policy is never").
 */
export const codexPreset: AgentPreset = {
  name: 'codex',
  programs: ['codex'],
  provider: 'openai',
  // The OpenAI API, and ChatGPT's backend and login for a ChatGPT sign-in (reads HTTPS_PROXY).
  providerHosts: ['api.openai.com', 'chatgpt.com', 'auth.openai.com'],
  homeFiles: ['.codex/auth.json'],
  homeVariables: { CODEX_HOME: '.codex' },
  stream: 'json',
  resumable: true,
  nativeLimits: { maxTurns: false, maxCostUsd: false },
  takesMcp: true,
  cli: {
    versionArgs: ['--version'],
    helps: [
      {
        args: ['exec', '--help'],
        flags: ['--json', '--dangerously-bypass-approvals-and-sandbox', '--skip-git-repo-check', '-c', '-m'],
      },
      // A resume is a subcommand of its own, with options of its own (no --sandbox).
      {
        args: ['exec', 'resume', '--help'],
        flags: ['--json', '--dangerously-bypass-approvals-and-sandbox', '--skip-git-repo-check', '-c', '-m'],
      },
    ],
    install: 'npm install -g @openai/codex',
  },
  command: (run) => ({
    argv: [
      ...run.program,
      'exec',
      ...(run.resumeSessionId ? ['resume', run.resumeSessionId] : []),
      ...(run.mcp ? codexMcpOverrides(run.mcp) : []),
      '--json',
      ...(run.sandboxed ? ['--dangerously-bypass-approvals-and-sandbox'] : ['-c', 'sandbox_mode="workspace-write"']),
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
        // A warning Codex prints ("Model metadata for … not found") is an item of type error, not a step.
        if (obj(event.item).type !== 'error') stats.turns = (stats.turns ?? 0) + 1;
        break;
      case 'turn.completed': {
        const usage = obj(event.usage);
        // Its input counts the cached tokens too: fed's input column counts those apart, as Claude's does.
        const cached = num(usage.cached_input_tokens);
        const input = num(usage.input_tokens);
        stats.inputTokens = add(stats.inputTokens, input === null ? null : input - Math.min(cached ?? 0, input));
        stats.outputTokens = add(stats.outputTokens, num(usage.output_tokens));
        stats.cacheReadTokens = add(stats.cacheReadTokens, cached);
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
    ['default_tools_approval_mode', JSON.stringify('approve')],
    // Started before the first turn, or the run fails: without it Codex goes on while the server starts
    // and a quick model calls fed's tools before they exist ("unsupported call: mcp__fedfed_whoami").
    ['required', 'true'],
  ].flatMap(([field, value]) => ['-c', `${key}.${field}=${value}`]);
}
