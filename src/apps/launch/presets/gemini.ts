import { classifyError } from './classify-error.js';
import { flag, num, obj, str, type AgentPreset } from './agent-preset.js';

/**
 * Gemini CLI: `gemini -p <prompt> --output-format stream-json --approval-mode yolo --skip-trust` (without
 * `--skip-trust` a workspace it does not trust yet ends the run with `FatalUntrustedWorkspaceError`),
 * resumed with `-r <id>`. Events: `init` (session id, model), `message`, `tool_use` (counted as turns),
 * `tool_result`, `error`, `result` (status and token stats: the input less the cached tokens, which are counted apart). Exit 53 is its turn
 * limit, 41 a login it does not have (stdout silent, the reason on stderr: "Please set an Auth method …"). No turn or cost flag: the launcher enforces those.
 */
export const geminiPreset: AgentPreset = {
  name: 'gemini',
  programs: ['gemini'],
  provider: 'gcp.gemini',
  // The Gemini API, Code Assist for a Google login, and Google's token endpoint (reads HTTPS_PROXY).
  providerHosts: ['generativelanguage.googleapis.com', 'cloudcode-pa.googleapis.com', 'oauth2.googleapis.com'],
  homeFiles: ['.gemini/oauth_creds.json', '.gemini/google_accounts.json', '.gemini/settings.json'],
  stream: 'json',
  resumable: true,
  nativeLimits: { maxTurns: false, maxCostUsd: false },
  cli: {
    versionArgs: ['--version'],
    helps: [{ args: ['--help'], flags: ['-p', '--output-format', '--approval-mode', '--skip-trust', '-m', '-r'] }],
    install: 'npm install -g @google/gemini-cli',
  },
  command: (run) => ({
    argv: [
      ...run.program,
      '-p',
      run.prompt,
      '--output-format',
      'stream-json',
      '--approval-mode',
      'yolo',
      '--skip-trust',
      ...flag('-m', run.model),
      ...flag('-r', run.resumeSessionId),
      ...run.args,
    ],
    stdin: null,
    env: {},
    sessionId: null,
  }),
  onEvent(event, stats) {
    switch (event.type) {
      case 'init':
        stats.sessionId = str(event.session_id) ?? stats.sessionId;
        stats.model = str(event.model) ?? stats.model;
        break;
      case 'tool_use':
        stats.turns = (stats.turns ?? 0) + 1;
        break;
      case 'error':
        stats.error = classifyError(str(event.message) ?? 'error');
        break;
      case 'result': {
        const totals = obj(event.stats);
        // Its `input_tokens` is the whole prompt, cached tokens included; `input` (0.61.0) is the rest, which
        // is what fed's input column counts (the cached ones are a column of their own, as for Claude).
        const cached = num(totals.cached);
        const prompt = num(totals.input_tokens);
        const uncached = num(totals.input) ?? (prompt === null ? null : prompt - Math.min(cached ?? 0, prompt));
        stats.inputTokens = uncached ?? stats.inputTokens;
        stats.outputTokens = num(totals.output_tokens) ?? stats.outputTokens;
        stats.cacheReadTokens = cached ?? stats.cacheReadTokens;
        stats.final =
          event.status === 'success'
            ? { outcome: 'completed', message: null }
            : classifyError(str(obj(event.error).message) ?? 'error');
        break;
      }
    }
  },
  exitVerdict: (code, stderr) =>
    code === 53
      ? { outcome: 'max-turns', message: 'reached the session turn limit (exit 53)' }
      : code === 42
        ? { outcome: 'crashed', message: 'input error (exit 42)' }
        : code === 41
          ? { outcome: 'auth', message: `${loginProblem(stderr) ?? 'no credentials it can use'} (exit 41)` }
          : undefined,
};

/** The line of its stderr that says what is wrong with the login (it prints "YOLO mode is enabled…" first). */
function loginProblem(stderr: readonly string[]): string | undefined {
  const lines = stderr.map((line) => line.trim()).filter(Boolean);
  return (lines.find((line) => classifyError(line).outcome === 'auth') ?? lines.at(-1))?.slice(0, 300);
}
