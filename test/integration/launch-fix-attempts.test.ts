import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type FederationConfig, launchTeam, listSignals, openFederation, viewLifecycle } from 'fed';
import { getTeam, readRefusedCompletion, readRegistry, workspacePaths } from 'fed/testing';
import { fakeAgent, federationWithMission, inDocsWorkspace } from '../helpers/launch-federation.js';

/**
 * Issue 27 item 5: a completion fed's checks refuse is the run's outcome `rejected`, and the violations go
 * back to the same session (`agent.fixAttempts` times) before the team fails.
 */
const fakeClaude = fileURLToPath(new URL('../fixtures/agents/bin/claude', import.meta.url));
const team = (root: string) => getTeam(readRegistry(root), 'docs');
const withFixAttempts = (config: FederationConfig, fixAttempts: number): FederationConfig => ({
  ...config,
  agent: { ...config.agent, fixAttempts },
});

async function launchFixing(fixAttempts: number | undefined) {
  const { root, config } = await federationWithMission();
  const log = inDocsWorkspace(root, 'calls.jsonl');
  const sessions = inDocsWorkspace(root, 'sessions');
  mkdirSync(sessions);
  const result = await launchTeam(openFederation(root), 'docs', {
    config: fixAttempts === undefined ? config : withFixAttempts(config, fixAttempts),
    agent: fakeClaude,
    // Its sessions kept: a resumed session reports its whole cost, as the real claude does.
    env: { ...process.env, FAKE_SCENARIO: 'fix-document', FAKE_CLI_LOG: log, FAKE_SESSIONS_DIR: sessions },
    pollMs: 50,
  });
  const calls = existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { args: string[]; resume: string | null })
    : [];
  return { root, result, calls };
}

describe('fed launch: a refused completion, and the chance to fix it', () => {
  it('claude, resumed with the violations, fixes its document: complete after one fix attempt, one run', async () => {
    const { root, result, calls } = await launchFixing(undefined);
    expect(result, readFileSync(result.logPath, 'utf8')).toMatchObject({ outcome: 'complete', state: 'complete' });
    expect(calls).toHaveLength(2);
    const session = result.lastRun.sessionId;
    // The id fed pre-assigned to the first attempt (--session-id), resumed by the fix attempt.
    expect(session).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(calls[0]!.args).toContain(session);
    expect(calls.map((call) => call.resume)).toEqual([null, session]);
    expect(result.lastRun).toMatchObject({
      preset: 'claude',
      outcome: 'completed',
      fixAttempts: 1,
      sessionId: session,
      stateBefore: 'preparing',
      stateAfter: 'complete',
      // Both attempts count: 4 turns, then the one fixing the document; the cost is the session's once
      // (0.20, then 0.25 reported by the resumed session: 0.05 more).
      turns: 5,
      costUsd: 0.25,
    });
    // The prompt it was resumed with names what to fix and how to report it again.
    const prompt = readFileSync(workspacePaths(team(root).location).fixPrompt, 'utf8');
    expect(prompt).toMatch(
      /^Continue your mission for team docs: fed's checks refused your DOCUMENT_WRITTEN \(fix attempt 1 of 2\)/,
    );
    expect(prompt).toContain('the summary has 1 sentence; it needs 2–3');
    expect(prompt).toContain(`fed event DOCUMENT_WRITTEN --data '{"path":"<deliverable>","bytes":1234}'`);
    // One run in the journal, both attempts in its transcript.
    expect(readFileSync(result.lastRun.transcriptPath, 'utf8').match(/"subtype":"init"/g)).toHaveLength(2);
  });

  it('with agent.fixAttempts 0 the refused completion fails the team: outcome rejected, the violations the reason', async () => {
    const { root, result, calls } = await launchFixing(0);
    expect(calls).toHaveLength(1);
    expect(result).toMatchObject({ outcome: 'failed', state: 'failed' });
    expect(result.reason).toMatch(
      /^document structure cannot be determined: 1 violation\(s\) in .*deliverable\.md: line 3: the summary has 1 sentence; it needs 2–3$/,
    );
    expect(result.lastRun).toMatchObject({ outcome: 'rejected', reason: result.reason, fixAttempts: 0 });
    expect((await viewLifecycle(openFederation(root), team(root))).failure).toEqual({
      reason: result.reason,
      state: 'aggregating',
    });
    expect(readRefusedCompletion(team(root).location)).toMatchObject({
      event: 'DOCUMENT_WRITTEN',
      fixable: true,
      violations: ['line 3: the summary has 1 sentence; it needs 2–3'],
    });
    const alerts = (await listSignals(openFederation(root), { team: 'meta' })).signals.map((s) => s.message.subject);
    expect(alerts).toContain('team docs failed');
  });

  it('an agent without sessions gets a new run told the violations; when it cannot fix them, rejected after the attempts', async () => {
    const { root, config } = await federationWithMission();
    const result = await launchTeam(openFederation(root), 'docs', {
      config: withFixAttempts(config, 1),
      agent: fakeAgent('bad-document'),
      pollMs: 50,
    });
    expect(result).toMatchObject({ outcome: 'failed', state: 'failed' });
    expect(result.lastRun).toMatchObject({ preset: 'custom', outcome: 'rejected', fixAttempts: 1 });
    expect(result.reason).toMatch(/^document structure cannot be determined: \d+ violation\(s\)/);
    // The second run was started in the state the lifecycle was in, with the refusal in its launch context.
    const context = JSON.parse(readFileSync(workspacePaths(team(root).location).launchContext, 'utf8')) as {
      state: string;
      fix: { attempt: number; of: number; event: string; violations: string[] };
    };
    expect(context.state).toBe('aggregating');
    expect(context.fix).toMatchObject({ attempt: 1, of: 1, event: 'DOCUMENT_WRITTEN' });
    expect(context.fix.violations.length).toBeGreaterThan(0);
  });
});
