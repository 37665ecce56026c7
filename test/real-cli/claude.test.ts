import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDeliverable, onboardTeam, openFederation, sendSignal } from 'fed';
import { readCurrentRun } from 'fed/testing';
import { skipWithoutBubblewrap } from '../helpers/bubblewrap.js';
import { killEach, waitFor } from '../helpers/fixture-process.js';
import { scriptedAnthropic, type ScriptedAnthropic } from '../helpers/model-server/anthropic.js';
import type { ModelStep } from '../helpers/model-server/script.js';
import {
  allowModelServer,
  codingScript,
  DELIVERABLE,
  expectReviewedAndMerged,
  deliverableScript,
  fakeCli,
  fakeDrift,
  finalEvent,
  launchAgent,
  launchers,
  launchRealCli,
  realCliCodingFederation,
  realCliFederation,
  type CliTools,
  type TestFederation,
} from '../helpers/real-cli-launch.js';
import { skipWithoutRealCli } from '../helpers/real-clis.js';

/**
 * The real Claude Code (test/real-clis) driven by the real `fed launch`, against a scripted Anthropic API
 * on a local port: the script calls fed's MCP tools, writes the deliverable and stops, and fed judges
 * the run as it judges any. Sandboxed (bubblewrap), as root — where Claude Code refuses to bypass its
 * permissions unless told it is in a sandbox — and as an unprivileged user; and with no sandbox.
 */
const SUITE = 'the real Claude Code driven by fed launch';

/** Claude Code's tools: fed's by their MCP names, its own Write. */
const CLAUDE: CliTools = {
  fed: (tool, input) => ({ call: `mcp__fed__${tool}`, input }),
  write: (path, content) => ({ call: 'Write', input: { file_path: path, content } }),
  shell: (command) => ({ call: 'Bash', input: { command, description: 'run a command' } }),
};

let server: ScriptedAnthropic | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function launch(fed: TestFederation, url: string, team = 'docs') {
  allowModelServer(fed, url);
  return launchRealCli(
    fed,
    'claude',
    {
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: 'sk-ant-test-key',
      // No reach for Anthropic's own hosts (there is no network here), no update check.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    },
    team,
  );
}

describe.skipIf(skipWithoutRealCli(SUITE, 'claude') || skipWithoutBubblewrap(`${SUITE} (sandboxed)`))(SUITE, () => {
  describe.each(launchers(SUITE))('launched by $label', ({ user: launcher }) => {
    it('completes a deliverable team end to end in the sandbox: fed tools called, the document written and accepted', async () => {
      const fed = await realCliFederation(launcher);
      server = await scriptedAnthropic({
        steps: deliverableScript(CLAUDE, fed.deliverable),
        usage: { input: 100, output: 20 },
      });
      const result = await launch(fed, server.url);

      expect(result, JSON.stringify(result.lastRun)).toMatchObject({ outcome: 'complete', state: 'complete' });
      expect(result.lastRun).toMatchObject({ outcome: 'completed', sandboxed: true, preset: 'claude' });
      expect(checkDeliverable(fed.deliverable).violations).toEqual([]);
      expect(readFileSync(fed.deliverable, 'utf8')).toBe(DELIVERABLE);
      // fed's tools were offered up front (not behind ToolSearch), and every step of the script was taken.
      expect(server.turns[0]!.tools).toEqual(expect.arrayContaining(['mcp__fed__fed_event', 'mcp__fed__fed_whoami']));
      expect(server.turns).toHaveLength(7);
      // The session fed assigned is the one Claude Code used and reported.
      expect(result.lastRun.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      for (const turn of server.turns) expect(turn.headers['x-claude-code-session-id']).toBe(result.lastRun.sessionId);
      // Tokens as the server reported them, turn after turn; the cost as Claude Code priced them.
      expect(result.lastRun).toMatchObject({ inputTokens: 7 * 100, outputTokens: 7 * 20, turns: 7 });
      const final = finalEvent(result.lastRun.transcriptPath);
      expect(final.type).toBe('result');
      expect(result.lastRun.costUsd).toBe(final.total_cost_usd);
    }, 180_000);

    it("a coding team in the sandbox: reads, edits, runs the project's tests, commits on its branch, asks for review; fed's review and merge take the commit", async () => {
      const fed = await realCliCodingFederation(launcher);
      server = await scriptedAnthropic({
        steps: codingScript(CLAUDE, fed.worktree),
        usage: { input: 100, output: 20 },
      });
      const result = await launch(fed, server.url, 'app');

      expect(result, JSON.stringify(result.lastRun)).toMatchObject({ outcome: 'waiting', state: 'pr-review' });
      expect(result.lastRun).toMatchObject({ sandboxed: true, preset: 'claude' });
      expect(server.turns).toHaveLength(9);
      // The project's tests ran in the sandbox, and passed: their output went back to the model.
      expect(JSON.stringify(server.turns[5]!.messages)).toContain('0 failed');
      await expectReviewedAndMerged(fed);
    }, 240_000);

    it('completes with no sandbox around it too: as root with the tools it needs allowed by name, which Claude Code accepts', async () => {
      const fed = await realCliFederation(launcher, { agent: { sandbox: false } });
      server = await scriptedAnthropic({
        steps: deliverableScript(CLAUDE, fed.deliverable),
        usage: { input: 100, output: 20 },
      });
      const result = await launch(fed, server.url);
      expect(result, JSON.stringify(result.lastRun)).toMatchObject({ outcome: 'complete' });
      expect(result.lastRun).toMatchObject({ outcome: 'completed', sandboxed: false });
      const mode = result.lastRun.command[result.lastRun.command.indexOf('--permission-mode') + 1];
      expect(mode).toBe(launcher ? 'bypassPermissions' : 'dontAsk');
    }, 180_000);

    it('a launcher SIGKILLed mid-turn: the next launch resumes the same session, and the model sees its earlier turns', async () => {
      const fed = await realCliFederation(launcher);
      const [whoami, plan, ...rest] = deliverableScript(CLAUDE, fed.deliverable);
      server = await scriptedAnthropic({
        steps: [whoami!, plan!, { hold: true }, ...rest],
        usage: { input: 100, output: 20 },
      });
      const first = launch(fed, server.url);
      // Killed with the third turn in flight: fed gave the session its id before Claude Code said anything.
      await waitFor(() => server!.turns.length === 3, 120_000, 'the held turn');
      const session = server.turns[0]!.headers['x-claude-code-session-id'];
      // The launcher itself (as an unprivileged user, runuser's child): the run in progress names it.
      killEach([readCurrentRun(join(fed.root, '.fed', 'teams', 'docs'))!.launcherPid]);
      await first.catch(() => undefined);

      const second = await launch(fed, server.url);
      expect(second, JSON.stringify(second.lastRun)).toMatchObject({ outcome: 'complete' });
      expect(second.lastRun).toMatchObject({ resumedSessionId: session, sessionId: session });
      const resumed = server.turns[3]!;
      expect(resumed.headers['x-claude-code-session-id']).toBe(session);
      // The earlier turns came back with the session: fed_whoami and PLAN_READY, and their results.
      const sent = JSON.stringify(resumed.messages);
      expect(sent).toContain('mcp__fed__fed_whoami');
      expect(sent).toContain('PLAN_READY');
      expect(readFileSync(fed.deliverable, 'utf8')).toBe(DELIVERABLE);
    }, 240_000);
  });

  it('a refused document, fixed by resuming the session: the run costs what the session did, counted once', async () => {
    const fed = await realCliFederation(undefined);
    const script = deliverableScript(CLAUDE, fed.deliverable);
    // A summary of one sentence, which fed refuses; resumed with the violations, the model writes it whole.
    const refused = '# Report\n\nA short report.\n\n## Next steps\n\n- Read it.\n';
    const event = (type: string, data: Record<string, unknown>) => CLAUDE.fed('fed_event', { type, data });
    const written = (content: string) => [
      CLAUDE.write(fed.deliverable, content),
      event('DOCUMENT_WRITTEN', { path: fed.deliverable, bytes: Buffer.byteLength(content) }),
      { say: 'The document is written and reported.' },
    ];
    server = await scriptedAnthropic({
      steps: [...script.slice(0, 4), ...written(refused), ...written(DELIVERABLE)],
      usage: { input: 100, output: 20 },
    });
    const result = await launch(fed, server.url);
    expect(result, JSON.stringify(result.lastRun)).toMatchObject({ outcome: 'complete' });
    expect(result.lastRun).toMatchObject({ outcome: 'completed', fixAttempts: 1 });
    // Claude Code's resumed session reports its whole cost: the run's is that, not the attempts' sum.
    const session = finalEvent(result.lastRun.transcriptPath);
    expect(session.total_cost_usd).toBeGreaterThan(0);
    expect(result.lastRun.costUsd).toBeCloseTo(session.total_cost_usd as number, 10);
    // Tokens are the process's own: both attempts add up.
    expect(result.lastRun).toMatchObject({ inputTokens: 10 * 100, outputTokens: 10 * 20 });
  }, 240_000);

  it('the fake claude of the preset tests says nothing the real one does not, for the same work', async () => {
    const real = await realCliFederation(undefined);
    server = await scriptedAnthropic({
      steps: deliverableScript(CLAUDE, real.deliverable),
      usage: { input: 100, output: 20 },
    });
    const realRun = await launch(real, server.url);
    expect(realRun.lastRun.outcome).toBe('completed');
    const fake = await realCliFederation(undefined);
    const fakeRun = await launchAgent(fake, fakeCli('claude'), { FAKE_SCENARIO: 'completed' });
    expect(fakeRun.lastRun.outcome).toBe('completed');
    const kind = (event: Record<string, unknown>) => [event.type, event.subtype].filter(Boolean).join('/');
    expect(fakeDrift(fakeRun.lastRun.transcriptPath, realRun.lastRun.transcriptPath, kind)).toEqual([]);
  }, 180_000);

  it('a rejected key ends the run as auth at its first retry, not after the ten Claude Code would make: paused, the fix named', async () => {
    const fed = await realCliFederation(undefined);
    const rejected: ModelStep = {
      fail: {
        status: 401,
        body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
      },
    };
    server = await scriptedAnthropic({ steps: Array<ModelStep>(20).fill(rejected), usage: { input: 1, output: 1 } });
    const result = await launch(fed, server.url);
    expect(result.lastRun.outcome).toBe('auth');
    expect(result.lastRun.reason).toMatch(/the API refused the credentials \(HTTP 401, authentication_failed\)/);
    expect(result).toMatchObject({ outcome: 'paused' });
    // Stopped at the first retry line: the server saw the first try and at most the retry under way.
    expect(server.turns.length).toBeLessThanOrEqual(2);
  }, 180_000);

  it('a limit the server says lifts in 90 s: Claude Code gives up at once; fed pauses the team beyond what it waits out, and holds the key', async () => {
    const fed = await realCliFederation(undefined);
    // A second team on the same key (the same claude account).
    await onboardTeam(openFederation(fed.root), { domain: 'api' });
    await sendSignal(openFederation(fed.root), { to: 'api', type: 'directive', subject: 'Document the API' });
    const limited: ModelStep = {
      fail: {
        status: 429,
        headers: { 'retry-after': '90' },
        body: {
          type: 'error',
          error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' },
        },
      },
    };
    server = await scriptedAnthropic({ steps: [limited], usage: { input: 1, output: 1 } });
    const before = Date.now();
    const result = await launch(fed, server.url);
    expect(result.lastRun.outcome).toBe('rate-limited');
    // No rate_limit_event with an API key, no retry line for a wait over 60 s: nothing said when it lifts.
    expect(readFileSync(result.lastRun.transcriptPath, 'utf8')).not.toContain('rate_limit_event');
    expect(Date.parse(result.lastRun.resumeAt!)).toBeGreaterThanOrEqual(before + 120_000);
    // The key's other team does not start its agent into the same limit.
    const other = await launch(fed, server.url, 'api');
    expect(other.lastRun).toMatchObject({ outcome: 'rate-limited', resumeAt: result.lastRun.resumeAt });
    expect(server.turns).toHaveLength(1);
  }, 180_000);
});
