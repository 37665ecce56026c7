import type { RunOutcome } from '../../../core/schema/launch-run.js';
import { randomUuid } from '../../../infra/crypto/random.js';
import { classifyError } from './classify-error.js';
import { mcpConfigJson } from './mcp-config.js';
import {
  flag,
  num,
  obj,
  str,
  type AgentPreset,
  type JsonEvent,
  type PresetInvocation,
  type StreamStats,
} from './agent-preset.js';

/**
 * Claude Code: `claude -p <prompt> --output-format stream-json --verbose`, its tools allowed (permissions:
 * every one, or as root outside a sandbox the ones the team needs), turn and budget caps passed through. A new session gets its id from fed (`--session-id <uuid>`), so the run in
 * progress names it from the start and a run killed before its first event is still resumed by it; a
 * resume is `--resume <id>`, never both. The stream starts with `system/init` (session id, model) and
 * ends with a `result` whose `subtype` and `is_error` say how it ended — a rate limit has come as
 * `success` with `is_error: true` and exit 0, so the result text is read too, and so are the assistant
 * message's `error` category and `rate_limit_event`. fed's MCP server comes in a JSON file of the run's
 * (`--mcp-config`), beside the user's own servers unless `agent.mcp` is `"strict"` (`--strict-mcp-config`).
 */
export const claudePreset: AgentPreset = {
  name: 'claude',
  programs: ['claude'],
  provider: 'anthropic',
  // The Anthropic API; token refreshes of a Claude subscription login (reads HTTPS_PROXY).
  providerHosts: ['api.anthropic.com', 'console.anthropic.com'],
  homeFiles: ['.claude/.credentials.json'],
  homeVariables: { CLAUDE_CONFIG_DIR: '.claude' },
  stream: 'json',
  resumable: true,
  nativeLimits: { maxTurns: true, maxCostUsd: true },
  takesMcp: true,
  cli: {
    versionArgs: ['--version'],
    helps: [
      // `--max-turns` is left out: it works, but `claude --help` has never listed it (anthropics/claude-code#16963).
      {
        args: ['--help'],
        flags: [
          '-p',
          '--output-format',
          '--verbose',
          '--permission-mode',
          '--max-budget-usd',
          '--model',
          '--resume',
          '--session-id',
          '--mcp-config',
        ],
      },
    ],
    install: 'npm install -g @anthropic-ai/claude-code',
    asRoot:
      "Claude Code refuses to bypass its permission checks as root unless it runs in a sandbox; fed tells it of fed's sandbox (IS_SANDBOX=1), and outside one allows the team's tools by name (--permission-mode dontAsk --allowedTools …)",
  },
  command: (run) => {
    const sessionId = run.resumeSessionId ? null : randomUuid();
    return {
      argv: [
        ...run.program,
        '-p',
        run.prompt,
        '--output-format',
        'stream-json',
        '--verbose',
        ...permissions(run).args,
        ...flag('--max-turns', run.limits.maxTurns),
        ...flag('--max-budget-usd', run.limits.maxCostUsd),
        ...flag('--model', run.model),
        ...flag('--resume', run.resumeSessionId),
        ...flag('--session-id', sessionId),
        ...flag('--mcp-config', run.mcp?.configFile),
        ...(run.mcp?.strict ? ['--strict-mcp-config'] : []),
        ...run.args,
      ],
      stdin: null,
      env: permissions(run).env,
      sessionId,
      // Claude Code 2.1.328 keeps an MCP server's tools behind its ToolSearch tool (one more turn of every
      // run to find them) unless the server is loaded up front.
      files: run.mcp ? { [run.mcp.configFile]: mcpConfigJson(run.mcp, { alwaysLoad: true }) } : {},
    };
  },
  // Seen with the real 2.1.328: a 429 whose retry-after is up to 60 s is retried (api_retry lines), a longer one not.
  waitsOutRateLimitsMs: 60_000,
  onEvent(event, stats) {
    stats.sessionId = str(event.session_id) ?? stats.sessionId;
    if (event.type === 'system' && event.subtype === 'init') stats.model = str(event.model) ?? stats.model;
    else if (event.type === 'system' && event.subtype === 'api_retry') readRetry(event, stats);
    else if (event.type === 'rate_limit_event') readRateLimit(obj(event.rate_limit_info), stats);
    else if (event.type === 'assistant') readAssistantError(event, stats);
    else if (event.type === 'result') readResult(event, stats);
  },
};

/**
 * How Claude Code may use its tools. Every tool, unasked (`bypassPermissions`), except as root outside a
 * sandbox: as uid 0 Claude Code refuses that mode ("cannot be used with root/sudo privileges") unless it
 * is told it runs in a deliberate sandbox (its check reads `IS_SANDBOX=1`) — which it is inside fed's,
 * so fed says so there. As root with no sandbox around it, the tools the team's work needs are allowed by
 * name and anything else is denied without a prompt (`dontAsk`): a study team's reading, its shell and its
 * document, a coding team's edits as well, and fed's own tools.
 */
function permissions(run: PresetInvocation): { args: string[]; env: Record<string, string> } {
  if (run.sandboxed) return { args: ['--permission-mode', 'bypassPermissions'], env: { IS_SANDBOX: '1' } };
  if (!run.asRoot) return { args: ['--permission-mode', 'bypassPermissions'], env: {} };
  const tools = [
    ...STUDY_TOOLS,
    ...(run.readOnlyCodebase ? [] : CODING_TOOLS),
    ...(run.mcp ? [`mcp__${run.mcp.name}`] : []),
  ];
  return { args: ['--permission-mode', 'dontAsk', '--allowedTools', tools.join(',')], env: {} };
}

/**
 * What a team that studies the codebase uses: reading, its shell, writing its document, and the search
 * that finds MCP tools (2.1.328 lists fed's tools only through it). Glob, Grep, TodoWrite and MultiEdit
 * are the names of earlier releases, which had them.
 */
const STUDY_TOOLS = ['Read', 'Bash', 'Write', 'ToolSearch', 'Glob', 'Grep', 'TodoWrite'];
/** What a coding team uses besides. */
const CODING_TOOLS = ['Edit', 'NotebookEdit', 'MultiEdit'];

function readResult(event: JsonEvent, stats: StreamStats): void {
  const usage = obj(event.usage);
  stats.turns = num(event.num_turns) ?? stats.turns;
  // The session's total: a resumed session's counts its earlier runs (and fix attempts) too.
  stats.sessionCostUsd = num(event.total_cost_usd) ?? stats.sessionCostUsd;
  stats.inputTokens = num(usage.input_tokens) ?? stats.inputTokens;
  stats.outputTokens = num(usage.output_tokens) ?? stats.outputTokens;
  stats.cacheReadTokens = num(usage.cache_read_input_tokens) ?? stats.cacheReadTokens;
  stats.cacheWriteTokens = num(usage.cache_creation_input_tokens) ?? stats.cacheWriteTokens;
  const subtype = str(event.subtype) ?? '';
  const message =
    str(event.result) ??
    str(event.error) ??
    (Array.isArray(event.errors) ? event.errors.map(String).join('; ') : null) ??
    subtype;
  if (subtype === 'error_max_turns')
    stats.final = { outcome: 'max-turns', message: `reached the turn limit (${stats.turns ?? '?'} turns)` };
  else if (subtype === 'error_max_budget_usd')
    stats.final = { outcome: 'budget', message: `reached the cost limit ($${stats.sessionCostUsd ?? '?'})` };
  else if (subtype === 'success' && event.is_error !== true) stats.final = { outcome: 'completed', message: null };
  // An error result after the assistant named its error says no more than that error did.
  else stats.final = stats.error ?? classifyError(message);
}

/** What each category of the assistant message's `error` means for the run. */
const ASSISTANT_ERRORS: Record<string, RunOutcome> = {
  authentication_failed: 'auth',
  billing_error: 'budget',
  rate_limit: 'rate-limited',
  invalid_request: 'crashed',
  server_error: 'crashed',
  unknown: 'crashed',
};

/** An assistant message with an `error` category: the run's error, with the message's text as the reason. */
function readAssistantError(event: JsonEvent, stats: StreamStats): void {
  const category = str(event.error);
  if (!category) return;
  const content = obj(event.message).content;
  const text = Array.isArray(content)
    ? content
        .map((block) => str(obj(block).text))
        .filter((line): line is string => line !== null)
        .join(' ')
    : null;
  const message = `${category}${text ? `: ${text}` : ''}`;
  stats.error = { outcome: ASSISTANT_ERRORS[category] ?? classifyError(message).outcome, message };
}

/**
 * `system/api_retry`, seen with the real 2.1.328: Claude Code is about to retry a failed request
 * (`attempt` of `max_retries`, after `retry_delay_ms`). A rejected key (401, 403: `authentication_failed`)
 * it retries ten times over minutes, to no use: the run is auth at once. A limit (429) is waited out for
 * the server's retry-after: when it lifts is then known, and held for the key's other teams if the run
 * ends rate-limited all the same — with an API key Claude Code sends no rate_limit_event.
 */
function readRetry(event: JsonEvent, stats: StreamStats): void {
  const status = num(event.error_status);
  const error = str(event.error);
  if (status === 401 || status === 403 || error === 'authentication_failed') {
    stats.error = stats.hopeless = {
      outcome: 'auth',
      message: `the API refused the credentials (HTTP ${status ?? '?'}${error ? `, ${error}` : ''}); Claude Code would retry ${num(event.max_retries) ?? 'several'} times over minutes`,
    };
    return;
  }
  const delay = num(event.retry_delay_ms);
  if ((status === 429 || error === 'rate_limit') && delay !== null)
    stats.resetsAt = new Date(Date.now() + delay).toISOString();
}

/**
 * `rate_limit_event`: `allowed` and `allowed_warning` are news, `rejected` is the limit — kept with its
 * reset time (`resetsAt`, epoch seconds), so the team resumes when the limit lifts rather than at a guess.
 */
function readRateLimit(info: Record<string, unknown>, stats: StreamStats): void {
  if (info.status !== 'rejected') return;
  const resetsAt = num(info.resetsAt);
  if (resetsAt !== null) stats.resetsAt = new Date(resetsAt * 1000).toISOString();
  const kind = str(info.rateLimitType);
  stats.error = {
    outcome: 'rate-limited',
    message: `the ${kind ? `${kind} ` : ''}rate limit was reached${stats.resetsAt ? `; it resets at ${stats.resetsAt}` : ''}`,
  };
}
