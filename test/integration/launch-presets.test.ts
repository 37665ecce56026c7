import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type FederationConfig, launchTeam, listSignals, openFederation, setTeamStatus, viewLifecycle } from 'fed';
import {
  type AgentLimits,
  getTeam,
  processIsAlive,
  readCurrentRun,
  readLastRun,
  readRegistry,
  readRunHistory,
} from 'fed/testing';
import { FED_BIN } from '../helpers/fed-cli.js';
import { waitFor } from '../helpers/fixture-process.js';
import { fakeAgent, federationWithMission, inDocsWorkspace } from '../helpers/launch-federation.js';

/**
 * The agent CLI presets against fake CLIs (test/fixtures/agents/bin/<cli>) that check the flags they get,
 * speak their CLI's event stream and drive the lifecycle with `fed event`.
 */
const CLIS = ['claude', 'codex', 'gemini', 'copilot', 'opencode', 'goose', 'aider'] as const;
type Cli = (typeof CLIS)[number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** What each fake CLI's completed run reports of its model, tokens and cost (null: the CLI does not say). */
const USAGE: Record<Cli, Partial<Record<string, unknown>>> = {
  claude: {
    model: 'claude-sonnet-4-5',
    costUsd: 0.2,
    inputTokens: 400,
    outputTokens: 40,
    cacheReadTokens: 4000,
    cacheWriteTokens: 200,
  },
  codex: {
    model: null,
    costUsd: null,
    // Codex's 500 input tokens count its 300 cached ones too: fed counts those apart.
    inputTokens: 200,
    outputTokens: 50,
    cacheReadTokens: 300,
    cacheWriteTokens: null,
  },
  gemini: { model: 'gemini-2.5-pro', inputTokens: 480, outputTokens: 60, cacheReadTokens: 120, costUsd: null },
  copilot: { model: null, inputTokens: null, outputTokens: 100, costUsd: null },
  // Four tool-call steps and the answer: output includes reasoning, cache and cost summed.
  opencode: {
    inputTokens: 500,
    outputTokens: 70,
    cacheReadTokens: 250,
    cacheWriteTokens: 80,
    costUsd: expect.closeTo(0.05, 6),
  },
  goose: { inputTokens: 250, outputTokens: 50, costUsd: null },
  aider: { inputTokens: null, outputTokens: null, costUsd: null },
};

const fakeCli = (cli: Cli) => fileURLToPath(new URL(`../fixtures/agents/bin/${cli}`, import.meta.url));
const team = (root: string) => getTeam(readRegistry(root), 'docs');
const metaSignals = async (root: string) =>
  (await listSignals(openFederation(root), { team: 'meta' })).signals.map(
    (s) => `${s.message.type}: ${s.message.subject}`,
  );

/** Each launch's own log of the CLI's calls. */
let launches = 0;

async function launchFake(
  cli: Cli,
  scenario: string,
  options: {
    root?: string;
    config?: FederationConfig;
    limits?: AgentLimits;
    agent?: Partial<FederationConfig['agent']>;
  } = {},
) {
  const federation =
    options.root && options.config ? { root: options.root, config: options.config } : await federationWithMission();
  const log = inDocsWorkspace(federation.root, `calls-${++launches}.jsonl`);
  const config = {
    ...federation.config,
    agent: { ...federation.config.agent, limits: options.limits ?? {}, ...options.agent },
  };
  const result = await launchTeam(openFederation(federation.root), 'docs', {
    config,
    agent: fakeCli(cli),
    env: { ...process.env, FAKE_SCENARIO: scenario, FAKE_CLI_LOG: log },
    pollMs: 50,
    graceMs: 2_000,
  });
  const calls = existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { args: string[]; resume: string | null })
    : [];
  return { ...federation, config, result, calls };
}

describe('fed launch with agent CLI presets', () => {
  it.each(CLIS)('%s: a completed run reports session, turns and outcome, logs its transcript', async (cli) => {
    const { root, result, calls } = await launchFake(cli, 'completed');
    expect(result, readFileSync(result.logPath, 'utf8')).toMatchObject({ outcome: 'complete', state: 'complete' });
    expect(calls).toHaveLength(1);
    const run = result.lastRun;
    expect(run).toMatchObject({
      preset: cli,
      outcome: 'completed',
      exitCode: 0,
      progressed: true,
      stateBefore: 'preparing',
      stateAfter: 'complete',
      resumedSessionId: null,
    });
    // Goose's session is the name fed gave it, Claude's the id fed assigned (`--session-id`).
    const sessionIds: Partial<Record<Cli, RegExp>> = { goose: /^fed-docs-/, claude: UUID };
    if (cli === 'aider') expect(run.sessionId).toBeNull();
    else expect(run.sessionId).toMatch(sessionIds[cli] ?? new RegExp(`^${cli}-session-`));
    if (cli === 'claude') expect(calls[0]!.args).toEqual(expect.arrayContaining(['--session-id', run.sessionId]));
    // OpenCode's answer is a step of its own, the last (`reason: "stop"`).
    if (cli !== 'aider') expect(run.turns).toBe(cli === 'opencode' ? 5 : 4);
    expect(run).toMatchObject(USAGE[cli]);
    const transcripts: Record<string, string> = { aider: 'Aider v0.86.0', goose: '{"type":"complete"' };
    expect(readFileSync(run.transcriptPath, 'utf8')).toContain(transcripts[cli] ?? run.sessionId);
    // The journal holds the run, and it is what `fed team show` reports as lastRun.
    expect(readLastRun(team(root).location)).toEqual(run);
  });

  it.each(CLIS)('%s: a rate limit the CLI reports (exit 0 or not) pauses the team and alerts meta', async (cli) => {
    const { root, result } = await launchFake(cli, 'rate-limit');
    expect(result.lastRun.outcome).toBe('rate-limited');
    expect(result).toMatchObject({ outcome: 'paused', state: 'paused' });
    expect(result.reason).toMatch(/^rate-limited: .*(rate|quota|429)/i);
    expect(team(root).status).toBe('paused');
    expect(await metaSignals(root)).toContain('alert: team docs paused: rate-limited');
  });

  it.each([
    ['claude', 'max-turns', { maxTurns: 1 }],
    ['gemini', 'max-turns', {}],
    ['codex', 'turns', { maxTurns: 3 }],
  ] as const)('%s: the turn limit (%s) pauses the team', async (cli, scenario, limits) => {
    const { root, result, calls } = await launchFake(cli, scenario, { limits });
    expect(result.lastRun.outcome).toBe('max-turns');
    expect(result).toMatchObject({ outcome: 'paused', state: 'paused' });
    expect(team(root).status).toBe('paused');
    // Claude enforces its own cap; codex has none, so the launcher counts its turns and stops it.
    if (cli === 'claude') expect(calls[0]!.args).toEqual(expect.arrayContaining(['--max-turns', '1']));
    if (cli === 'codex') expect(result.lastRun.turns).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['claude', { maxCostUsd: 1 }],
    ['opencode', { maxCostUsd: 1 }],
  ] as const)('%s: reaching the budget pauses the team', async (cli, limits) => {
    const { root, result, calls } = await launchFake(cli, 'budget', { limits });
    expect(result.lastRun.outcome).toBe('budget');
    expect(result.lastRun.costUsd).toBeGreaterThanOrEqual(1);
    expect(result).toMatchObject({ outcome: 'paused', state: 'paused' });
    expect(team(root).status).toBe('paused');
    if (cli === 'claude') expect(calls[0]!.args).toEqual(expect.arrayContaining(['--max-budget-usd', '1']));
  });

  it.each(['claude', 'codex', 'gemini', 'copilot'] as const)(
    '%s: an auth error before any progress pauses the team with that reason: its login needs fixing, not its work',
    async (cli) => {
      const { root, result } = await launchFake(cli, 'auth');
      expect(result.lastRun.outcome).toBe('auth');
      // Its lifecycle paused where it was, to go on from there once the login is fixed.
      expect(result).toMatchObject({ outcome: 'paused', state: 'paused' });
      expect(result.reason).toMatch(/^auth: /);
      expect(team(root).status).toBe('paused');
      expect(await metaSignals(root)).toContain('alert: team docs paused: auth');
    },
  );

  it.each([
    ['gemini', /^Please set an Auth method in your .* \(exit 41\)$/],
    ['copilot', /^Error: No authentication information found\. \(exit 1\)$/],
  ] as const)('%s without a login says why on stderr alone: auth, in its words', async (cli, reason) => {
    const { result } = await launchFake(cli, 'auth');
    expect(result.lastRun).toMatchObject({ outcome: 'auth', reason: expect.stringMatching(reason) });
  });

  it('copilot: exit 0 with no output on broken auth (as older releases did) is a run that made no progress: failed', async () => {
    const { root, result } = await launchFake('copilot', 'silent');
    expect(result.lastRun.outcome).toBe('no-progress');
    expect(result).toMatchObject({ outcome: 'failed', state: 'failed' });
    expect((await viewLifecycle(openFederation(root), team(root))).failure?.reason).toMatch(/^no-progress: /);
    expect(await metaSignals(root)).toContain('alert: team docs failed');
  });

  it.each(['claude', 'codex', 'gemini', 'copilot', 'opencode', 'goose'] as const)(
    '%s: a crash after progress pauses; the relaunch resumes the same session by id with a continuation prompt',
    async (cli) => {
      const first = await launchFake(cli, 'crash');
      expect(first.result.lastRun).toMatchObject({ outcome: 'crashed', progressed: true, exitCode: 1 });
      expect(first.result).toMatchObject({ outcome: 'paused', state: 'paused' });
      const sessionId = first.result.lastRun.sessionId;
      expect(sessionId).toBeTruthy();

      await setTeamStatus(openFederation(first.root), 'docs', { type: 'RESUME' });
      const second = await launchFake(cli, 'completed', { root: first.root, config: first.config });
      expect(second.calls[0]!.resume).toBe(sessionId);
      expect(second.result.lastRun).toMatchObject({
        outcome: 'completed',
        resumedSessionId: sessionId,
        sessionId,
        stateBefore: 'scanning',
      });
      expect(second.result.state).toBe('complete');
    },
  );

  it.each([true, false])(
    'codex runs without the removed --full-auto, with its own sandbox unless fed sandboxes it (sandbox: %s)',
    async (sandbox) => {
      const { result, calls } = await launchFake('codex', 'completed', { agent: { sandbox } });
      expect(result, readFileSync(result.logPath, 'utf8')).toMatchObject({ outcome: 'complete', state: 'complete' });
      const args = calls[0]!.args;
      expect(args).not.toContain('--full-auto');
      // Inside fed's bubblewrap sandbox (when bwrap works here) Codex is told to leave its own off.
      if (!sandbox) expect(result.lastRun.sandboxed).toBe(false);
      if (result.lastRun.sandboxed) {
        expect(args).toContain('--dangerously-bypass-approvals-and-sandbox');
        expect(args.join(' ')).not.toContain('sandbox_mode');
      } else expect(args).toEqual(expect.arrayContaining(['-c', 'sandbox_mode="workspace-write"']));
      // Never --sandbox, which `codex exec resume` refuses.
      expect(args).not.toContain('--sandbox');
    },
  );

  it('a fake codex given the removed --full-auto refuses it as current Codex does', async () => {
    const { result, calls } = await launchFake('codex', 'completed', { agent: { args: ['--full-auto'] } });
    // Refused by its argument parser, before it logs the call or says anything on stdout.
    expect(calls).toEqual([]);
    // It refused to start, saying why: the team is paused with its words, for the operator to fix agent.args.
    expect(result.lastRun).toMatchObject({
      outcome: 'refused',
      reason: "error: unexpected argument '--full-auto' found (exit 2)",
      exitCode: 2,
      progressed: false,
    });
    expect(result).toMatchObject({ outcome: 'paused' });
    expect(readFileSync(result.logPath, 'utf8')).toContain("error: unexpected argument '--full-auto' found");
  });

  it('a claude run killed before its init event is resumed by the session id fed assigned it', async () => {
    const { root, config } = await federationWithMission();
    const location = team(root).location;
    const log = inDocsWorkspace(root, 'calls.jsonl');
    const { FED_ROOT: _root, FED_TEAM: _team, ...env } = process.env;
    const launcher = spawn(process.execPath, [FED_BIN, 'launch', '--team', 'docs', '--agent', fakeCli('claude')], {
      cwd: root,
      env: { ...env, NO_COLOR: '1', FED_TELEMETRY_ENABLED: 'false', FAKE_BEFORE_INIT: 'hang', FAKE_CLI_LOG: log },
      stdio: 'ignore',
    });
    const closed = new Promise((resolve) => launcher.on('close', resolve));
    // The run in progress names the session from the start, before the CLI said anything.
    await waitFor(() => existsSync(log) && readCurrentRun(location) !== undefined, 30_000, 'the agent to start');
    const orphan = readCurrentRun(location)!;
    expect(orphan.sessionId).toMatch(UUID);
    expect(readFileSync(orphan.transcriptPath, 'utf8')).not.toContain('"init"');
    launcher.kill('SIGKILL');
    await closed;
    await waitFor(() => !processIsAlive(orphan.pid), 30_000, 'the watchdog to stop the agent');

    const next = await launchFake('claude', 'completed', { root, config });
    expect(next.calls[0]!.resume).toBe(orphan.sessionId);
    expect(next.calls[0]!.args).not.toContain('--session-id');
    expect(readRunHistory(location).map((run) => [run.outcome, run.sessionId])).toEqual([
      ['interrupted', orphan.sessionId],
      ['completed', orphan.sessionId],
    ]);
    expect(next.result.lastRun).toMatchObject({ resumedSessionId: orphan.sessionId, outcome: 'completed' });
  });

  it('a custom CLI gets the prompt and its file through {prompt} and {promptFile}', async () => {
    const { root, config } = await federationWithMission();
    const result = await launchTeam(openFederation(root), 'docs', {
      config,
      agent: `${fakeAgent('custom-prompt')} --task {prompt} --task-file {promptFile}`,
      pollMs: 50,
    });
    expect(result, readFileSync(result.logPath, 'utf8')).toMatchObject({ outcome: 'complete', state: 'complete' });
    expect(result.lastRun).toMatchObject({ preset: 'custom', outcome: 'completed', sessionId: null });
    expect(readFileSync(result.lastRun.transcriptPath, 'utf8')).toMatch(/custom agent got a \d+-character prompt/);
  });

  it('a team whose lifecycle is final is never relaunched', async () => {
    // A run without progress that exited 0 fails the lifecycle.
    const { root, config } = await launchFake('copilot', 'silent');
    await expect(launchTeam(openFederation(root), 'docs', { config, agent: fakeCli('claude') })).rejects.toThrow(
      'its lifecycle is over',
    );
  });
});
