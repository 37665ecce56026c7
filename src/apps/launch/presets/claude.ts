import type { RunOutcome } from '../../../core/schema/launch-run.js';
import { randomUuid } from '../../../infra/crypto/random.js';
import { classifyError } from './classify-error.js';
import { mcpConfigJson } from './mcp-config.js';
import { flag, num, obj, str, type AgentPreset, type JsonEvent, type StreamStats } from './agent-preset.js';

/**
 * Claude Code: `claude -p <prompt> --output-format stream-json --verbose`, every tool allowed, turn and
 * budget caps passed through. A new session gets its id from fed (`--session-id <uuid>`), so the run in
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
  stream: 'json',
  resumable: true,
  nativeLimits: { maxTurns: true, maxCostUsd: true },
  takesMcp: true,
  cli: {
    versionArgs: ['--version'],
    helpArgs: ['--help'],
    // `--max-turns` is left out: it works, but `claude --help` has never listed it (anthropics/claude-code#16963).
    helpFlags: [
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
    install: 'npm install -g @anthropic-ai/claude-code',
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
        '--permission-mode',
        'bypassPermissions',
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
      env: {},
      sessionId,
      files: run.mcp ? { [run.mcp.configFile]: mcpConfigJson(run.mcp) } : {},
    };
  },
  onEvent(event, stats) {
    stats.sessionId = str(event.session_id) ?? stats.sessionId;
    if (event.type === 'system' && event.subtype === 'init') stats.model = str(event.model) ?? stats.model;
    else if (event.type === 'rate_limit_event') readRateLimit(obj(event.rate_limit_info), stats);
    else if (event.type === 'assistant') readAssistantError(event, stats);
    else if (event.type === 'result') readResult(event, stats);
  },
};

function readResult(event: JsonEvent, stats: StreamStats): void {
  const usage = obj(event.usage);
  stats.turns = num(event.num_turns) ?? stats.turns;
  stats.costUsd = num(event.total_cost_usd) ?? stats.costUsd;
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
    stats.final = { outcome: 'budget', message: `reached the cost limit ($${stats.costUsd ?? '?'})` };
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
