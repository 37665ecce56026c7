import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AGENT_PRESET_CATALOG,
  type AgentPresetName,
  emptyStats,
  type McpServer,
  type PresetInvocation,
  RunStream,
  type StreamStats,
} from 'fed/testing';
import { tempDir } from '../../helpers/temp-dir.js';

/** What a preset reads from these events, one after the other. */
function read(preset: AgentPresetName, ...events: object[]): StreamStats {
  const stats = emptyStats();
  for (const event of events) AGENT_PRESET_CATALOG[preset].onEvent!(event as Record<string, unknown>, stats);
  return stats;
}

const invocation = (over: Partial<PresetInvocation> = {}): PresetInvocation => ({
  program: ['cli'],
  prompt: 'do it',
  promptFile: '/w/prompt.md',
  resumeSessionId: null,
  newSessionName: 'fed-docs-1',
  model: 'm',
  limits: { maxTurns: 3, maxCostUsd: 1 },
  args: [],
  sandboxed: false,
  asRoot: false,
  readOnlyCodebase: true,
  mcp: null,
  ...over,
});

const mcpServer: McpServer = {
  name: 'fed',
  command: '/w/.fed/launch/bin/fed',
  args: ['mcp'],
  env: { FED_TEAM: 'docs' },
  inherit: [],
  strict: false,
  configFile: '/w/.fed/launch/mcp.json',
};

describe('agent CLI presets read their event streams', () => {
  it('claude: the model from init, cache tokens from the result, a budget result is the budget', () => {
    const stats = read(
      'claude',
      { type: 'system', subtype: 'init', session_id: 's1', model: 'claude-opus-4-1' },
      {
        type: 'result',
        subtype: 'error_max_budget_usd',
        is_error: true,
        session_id: 's1',
        num_turns: 7,
        total_cost_usd: 1.5,
        usage: { input_tokens: 10, output_tokens: 2, cache_read_input_tokens: 300, cache_creation_input_tokens: 40 },
      },
    );
    expect(stats).toMatchObject({
      sessionId: 's1',
      model: 'claude-opus-4-1',
      cacheReadTokens: 300,
      cacheWriteTokens: 40,
      final: { outcome: 'budget', message: 'reached the cost limit ($1.5)' },
    });
  });

  it.each([
    ['authentication_failed', 'auth'],
    ['billing_error', 'budget'],
    ['rate_limit', 'rate-limited'],
    ['invalid_request', 'crashed'],
    ['server_error', 'crashed'],
    ['unknown', 'crashed'],
  ])('claude: an assistant message with error %s is %s, with its text', (category, outcome) => {
    const assistant = {
      type: 'assistant',
      error: category,
      message: { content: [{ type: 'text', text: 'API Error: something' }] },
    };
    const result = { type: 'result', subtype: 'success', is_error: true, result: 'API Error: something' };
    const stats = read('claude', assistant, result);
    const verdict = { outcome, message: `${category}: API Error: something` };
    expect(stats.error).toEqual(verdict);
    // The result after it says no more than the error did.
    expect(stats.final).toEqual(verdict);
  });

  it('claude: a new session gets a fresh uuid as its id, a resumed one --resume and never --session-id', () => {
    const fresh = AGENT_PRESET_CATALOG.claude.command(invocation());
    expect(fresh.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(fresh.argv).toEqual(expect.arrayContaining(['--session-id', fresh.sessionId]));
    const resumed = AGENT_PRESET_CATALOG.claude.command(invocation({ resumeSessionId: fresh.sessionId }));
    expect(resumed).toMatchObject({ sessionId: null });
    expect(resumed.argv).toEqual(expect.arrayContaining(['--resume', fresh.sessionId]));
    expect(resumed.argv).not.toContain('--session-id');
  });

  it('claude: a retry of a rejected key is hopeless at once (auth); a retry of a limit says when it lifts', () => {
    // As the real 2.1.328 prints them (test/real-cli/claude.test.ts).
    const rejected = read('claude', {
      type: 'system',
      subtype: 'api_retry',
      attempt: 1,
      max_retries: 10,
      retry_delay_ms: 600,
      error_status: 401,
      error: 'authentication_failed',
    });
    expect(rejected.hopeless).toEqual({
      outcome: 'auth',
      message:
        'the API refused the credentials (HTTP 401, authentication_failed); Claude Code would retry 10 times over minutes',
    });
    expect(rejected.error).toEqual(rejected.hopeless);
    const before = Date.now();
    const limited = read('claude', {
      type: 'system',
      subtype: 'api_retry',
      attempt: 1,
      max_retries: 10,
      retry_delay_ms: 41_801,
      error_status: 429,
      error: 'rate_limit',
    });
    expect(limited.hopeless).toBeNull();
    const lifts = Date.parse(limited.resetsAt!);
    expect(lifts).toBeGreaterThanOrEqual(before + 41_801);
    expect(lifts).toBeLessThanOrEqual(Date.now() + 41_801);
    // A server error is only retried: nothing known, nothing hopeless.
    expect(
      read('claude', { type: 'system', subtype: 'api_retry', error_status: 529, retry_delay_ms: 500 }),
    ).toMatchObject({
      hopeless: null,
      resetsAt: null,
    });
  });

  it("claude: every tool in fed's sandbox (which it is told of) or as a user; as root with no sandbox, the team's tools by name", () => {
    const mode = (argv: string[]) => argv[argv.indexOf('--permission-mode') + 1];
    const allowed = (argv: string[]) => argv[argv.indexOf('--allowedTools') + 1]?.split(',');
    const asUser = AGENT_PRESET_CATALOG.claude.command(invocation());
    expect(mode(asUser.argv)).toBe('bypassPermissions');
    expect(asUser.env).toEqual({});
    expect(asUser.argv).not.toContain('--allowedTools');
    // Root in fed's sandbox: Claude Code's own root rule lets a deliberate sandbox through (IS_SANDBOX=1).
    for (const asRoot of [false, true]) {
      const sandboxed = AGENT_PRESET_CATALOG.claude.command(invocation({ sandboxed: true, asRoot }));
      expect(mode(sandboxed.argv)).toBe('bypassPermissions');
      expect(sandboxed.env).toEqual({ IS_SANDBOX: '1' });
    }
    // Root with no sandbox: never bypassPermissions, which Claude Code refuses there.
    const study = AGENT_PRESET_CATALOG.claude.command(invocation({ asRoot: true, mcp: mcpServer }));
    expect(mode(study.argv)).toBe('dontAsk');
    expect(study.env).toEqual({});
    expect(allowed(study.argv)).toEqual(expect.arrayContaining(['Read', 'Bash', 'Write', 'ToolSearch', 'mcp__fed']));
    expect(allowed(study.argv)).not.toContain('Edit');
    const coding = AGENT_PRESET_CATALOG.claude.command(invocation({ asRoot: true, readOnlyCodebase: false }));
    expect(allowed(coding.argv)).toEqual(expect.arrayContaining(['Read', 'Bash', 'Write', 'Edit', 'NotebookEdit']));
    expect(allowed(coding.argv)).not.toContain('mcp__fed');
  });

  it('codex: its own sandbox by the config key both exec and exec resume take, or none inside fed’s; fed’s tools need no approval', () => {
    for (const resumeSessionId of [null, 't1']) {
      const outside = AGENT_PRESET_CATALOG.codex.command(invocation({ resumeSessionId, mcp: mcpServer })).argv;
      expect(outside).toEqual(expect.arrayContaining(['-c', 'sandbox_mode="workspace-write"']));
      // The real 0.169.0's `exec resume` exits 2 on --sandbox.
      expect(outside).not.toContain('--sandbox');
      expect(outside).toEqual(expect.arrayContaining(['-c', 'mcp_servers.fed.default_tools_approval_mode="approve"']));
      const inside = AGENT_PRESET_CATALOG.codex.command(invocation({ resumeSessionId, sandboxed: true })).argv;
      expect(inside).toContain('--dangerously-bypass-approvals-and-sandbox');
      expect(inside.join(' ')).not.toContain('sandbox_mode');
    }
  });

  it('codex: input tokens without the cached ones (counted apart, as Claude counts them); its warnings are no turns', () => {
    const usage = { input_tokens: 100, cached_input_tokens: 60, output_tokens: 5 };
    expect(read('codex', { type: 'turn.completed', usage }, { type: 'turn.completed', usage })).toMatchObject({
      inputTokens: 80,
      cacheReadTokens: 120,
      outputTokens: 10,
    });
    // As the real 0.169.0 writes them: a warning about the model's metadata, then the agent's steps.
    const warning = {
      type: 'item.completed',
      item: { id: 'item_0', type: 'error', message: 'Model metadata for `gpt-test` not found.' },
    };
    const step = { type: 'item.completed', item: { id: 'item_1', type: 'agent_message', text: 'hi' } };
    expect(read('codex', warning, step, step).turns).toBe(2);
  });

  it('gemini: --skip-trust, the model from init, input tokens without the cached ones (counted apart)', () => {
    expect(AGENT_PRESET_CATALOG.gemini.command(invocation()).argv).toContain('--skip-trust');
    const stats = read(
      'gemini',
      { type: 'init', session_id: 'g1', model: 'gemini-2.5-flash' },
      { type: 'result', status: 'success', stats: { input_tokens: 50, output_tokens: 5, cached: 30, input: 20 } },
    );
    expect(stats).toMatchObject({ sessionId: 'g1', model: 'gemini-2.5-flash', inputTokens: 20, cacheReadTokens: 30 });
    // A release whose stats have no `input`: the prompt less the cached tokens.
    const older = read('gemini', { type: 'result', status: 'success', stats: { input_tokens: 50, cached: 30 } });
    expect(older).toMatchObject({ inputTokens: 20, cacheReadTokens: 30 });
  });

  it('copilot: the result names the session; exit code 0 completes, another is the last session error', () => {
    expect(AGENT_PRESET_CATALOG.copilot.command(invocation()).argv).toEqual(
      expect.arrayContaining(['--output-format', 'json', '--allow-all', '--no-ask-user']),
    );
    expect(read('copilot', { type: 'result', sessionId: 'c1', exitCode: 0, usage: {} })).toMatchObject({
      sessionId: 'c1',
      final: { outcome: 'completed' },
    });
    const limited = read(
      'copilot',
      { type: 'session.error', data: { errorType: 'rate_limit', message: 'slow down' } },
      { type: 'result', sessionId: 'c1', exitCode: 1 },
    );
    expect(limited.final).toEqual({ outcome: 'rate-limited', message: 'rate_limit: slow down' });
    expect(read('copilot', { type: 'result', sessionId: 'c1', exitCode: 3 }).final).toEqual({
      outcome: 'crashed',
      message: 'copilot ended with exit code 3',
    });
  });

  it('opencode: tokens, cache and cost summed over the steps; completed only when the last one stops', () => {
    const step = (reason: string) => ({
      type: 'step_finish',
      sessionID: 'o1',
      part: { reason, cost: 0.25, tokens: { input: 10, output: 3, reasoning: 2, cache: { read: 7, write: 1 } } },
    });
    const stopped = read('opencode', step('tool-calls'), step('stop'));
    expect(stopped).toMatchObject({
      turns: 2,
      inputTokens: 20,
      outputTokens: 10,
      cacheReadTokens: 14,
      cacheWriteTokens: 2,
      costUsd: 0.5,
      final: { outcome: 'completed' },
    });
    expect(read('opencode', step('stop'), step('tool-calls')).final).toBeNull();
  });

  it('goose: session naming off; input and output tokens, the total only when they are missing', () => {
    expect(AGENT_PRESET_CATALOG.goose.command(invocation()).env).toMatchObject({
      GOOSE_MODE: 'auto',
      GOOSE_DISABLE_SESSION_NAMING: 'true',
    });
    expect(read('goose', { type: 'complete', total_tokens: 90, input_tokens: 70, output_tokens: 20 })).toMatchObject({
      inputTokens: 70,
      outputTokens: 20,
    });
    expect(read('goose', { type: 'complete', total_tokens: 90 })).toMatchObject({
      inputTokens: 90,
      outputTokens: null,
    });
  });

  it('each flag doctor looks for in the help is one the preset passes', () => {
    for (const preset of Object.values(AGENT_PRESET_CATALOG)) {
      if (!preset.cli) continue;
      const passed = new Set(
        [false, true].flatMap((sandboxed) =>
          [false, true].flatMap((asRoot) =>
            [null, 'id-1'].flatMap((resumeSessionId) =>
              [null, mcpServer].flatMap((mcp) =>
                preset
                  .command(invocation({ sandboxed, asRoot, resumeSessionId, mcp }))
                  .argv.filter((word) => word.startsWith('-')),
              ),
            ),
          ),
        ),
      );
      expect(
        preset.cli.helps.flatMap((help) => help.flags).filter((flag) => !passed.has(flag)),
        preset.name,
      ).toEqual([]);
    }
  });
});

describe('the run stream', () => {
  it('skips a line it cannot parse (an event spliced into another) and reads the next', () => {
    const dir = tempDir();
    const stream = new RunStream(AGENT_PRESET_CATALOG.claude, join(dir, 'run.jsonl'), join(dir, 'agent.log'), () => {});
    stream.write(
      Buffer.from(
        '{"type":"assistant","message":{"content":[{"type":"te{"type":"system","subtype":"api_retry"}\n' +
          '{"type":"system","subtype":"init","session_id":"s9","model":"claude-haiku-4-5"}\n' +
          'not json at all\n' +
          '{"type":"result","subtype":"success","is_error":false,"num_turns":2}',
      ),
    );
    stream.close();
    expect(stream.stats).toMatchObject({
      sessionId: 's9',
      model: 'claude-haiku-4-5',
      turns: 2,
      final: { outcome: 'completed', message: null },
    });
  });
});
