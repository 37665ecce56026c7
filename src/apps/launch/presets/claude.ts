import { classifyError } from './classify-error.js';
import { flag, num, obj, str, type AgentPreset, type StreamStats } from './agent-preset.js';

/**
 * Claude Code: `claude -p <prompt> --output-format stream-json --verbose`, every tool allowed, turn and
 * budget caps passed through. The stream starts with `system/init` (the session id) and ends with a
 * `result` whose `subtype` and `is_error` say how it ended — a rate limit has come as `success` with
 * `is_error: true` and exit 0, so the result text is read too.
 */
export const claudePreset: AgentPreset = {
  name: 'claude',
  programs: ['claude'],
  stream: 'json',
  resumable: true,
  nativeLimits: { maxTurns: true, maxCostUsd: true },
  command: (run) => ({
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
      ...run.args,
    ],
    stdin: null,
    env: {},
    sessionId: null,
  }),
  onEvent(event, stats) {
    stats.sessionId = str(event.session_id) ?? stats.sessionId;
    if (event.type === 'rate_limit_event') return readRateLimit(obj(event.rate_limit_info), stats);
    if (event.type !== 'result') return;
    const usage = obj(event.usage);
    stats.turns = num(event.num_turns) ?? stats.turns;
    stats.costUsd = num(event.total_cost_usd) ?? stats.costUsd;
    stats.inputTokens = num(usage.input_tokens) ?? stats.inputTokens;
    stats.outputTokens = num(usage.output_tokens) ?? stats.outputTokens;
    const subtype = str(event.subtype) ?? '';
    const message =
      str(event.result) ??
      str(event.error) ??
      (Array.isArray(event.errors) ? event.errors.map(String).join('; ') : null) ??
      subtype;
    if (subtype === 'error_max_turns')
      stats.final = { outcome: 'max-turns', message: `reached the turn limit (${stats.turns ?? '?'} turns)` };
    else if (subtype.includes('budget'))
      stats.final = { outcome: 'budget', message: `reached the cost limit ($${stats.costUsd ?? '?'})` };
    else if (subtype === 'success' && event.is_error !== true) stats.final = { outcome: 'completed', message: null };
    // An error result after a rejected rate_limit_event is that limit, whatever its text says ("You've hit your limit").
    else stats.final = stats.error?.outcome === 'rate-limited' ? stats.error : classifyError(message);
  },
};

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
