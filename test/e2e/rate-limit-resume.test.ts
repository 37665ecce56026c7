import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { onboardTeam, openFederation, sendSignal } from 'fed';
import { getTeam, type LaunchRun, readRegistry, readRunHistory, type RunSummary } from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { waitFor } from '../helpers/fixture-process.js';
import { federationWithMission } from '../helpers/launch-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A Claude rate limit with its reset a few seconds ahead (test/fixtures/agents/fake-cli.mjs, scenario
 * rate-limit-reset: one account's limit, kept in FAKE_LIMIT_FILE), against the built CLI: `fed run`
 * waits for the reset and resumes the same session; with a shorter --max-wait it leaves the team paused
 * for a later run; another team on the account pauses until the same reset without starting its agent.
 */
const CLAUDE = fileURLToPath(new URL('../fixtures/agents/bin/claude', import.meta.url));

async function claudeFederation(teams: readonly string[], resetSeconds: number) {
  const { root } = await federationWithMission();
  const config = join(root, 'federate.config.json');
  // Unsandboxed: the fake account (its limit file and sessions) is one folder every team's CLI writes, as a
  // real provider's account is one place outside every sandbox; a sandboxed agent's /tmp is its own.
  const written = JSON.parse(readFileSync(config, 'utf8')) as { agent?: object };
  writeFileSync(
    config,
    JSON.stringify({ ...written, agentCommand: CLAUDE, agent: { ...written.agent, sandbox: false } }),
  );
  for (const team of teams.filter((t) => t !== 'docs')) {
    await onboardTeam(openFederation(root), { domain: team });
    await sendSignal(openFederation(root), { to: team, type: 'directive', subject: `Document ${team}`, body: 'Go.' });
  }
  const dir = tempDir();
  const files = { log: join(dir, 'calls.jsonl'), limit: join(dir, 'limit') };
  const env = {
    FAKE_SCENARIO: 'rate-limit-reset',
    FAKE_CLI_LOG: files.log,
    FAKE_LIMIT_FILE: files.limit,
    FAKE_RESET_SECONDS: String(resetSeconds),
    // A resumed session reports its whole cost, as the real claude does.
    FAKE_SESSIONS_DIR: dir,
  };
  return { root, env, ...files };
}

const calls = (log: string) =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { args: string[]; resume: string | null })
    : [];
/** The `total_cost_usd` of a claude run's last result (its transcript also holds a line that is not JSON). */
const finalCost = (transcript: string) =>
  (
    JSON.parse(
      readFileSync(transcript, 'utf8')
        .split('\n')
        .findLast((line) => line.startsWith('{"type":"result"'))!,
    ) as { total_cost_usd: number }
  ).total_cost_usd;
/** The account's reset, as the fake CLI reported it in `resetsAt`. */
const resetOf = (limit: string) => new Date(Number(readFileSync(limit, 'utf8')) * 1000).toISOString();
const runsOf = (root: string, team: string) => readRunHistory(getTeam(readRegistry(root), team).location);
const show = async (root: string, team: string) =>
  JSON.parse((await runFed(['--root', root, 'team', 'show', team, '--json'])).stdout) as {
    status: string;
    lastRun: LaunchRun;
  };

describe('fed run and a rate limit with its reset time', () => {
  it('waits for the reset, then resumes the same session by id (exit 0)', async () => {
    const { root, env, log, limit } = await claudeFederation(['docs'], 3);
    const result = await runFed(['--root', root, 'run'], { env, timeoutMs: 120_000 });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const resetAt = resetOf(limit);
    expect(result.stdout).toContain(`docs: waiting for the rate limit to reset at ${resetAt}`);
    const [first, second] = runsOf(root, 'docs');
    expect(first).toMatchObject({ preset: 'claude', outcome: 'rate-limited', resumeAt: resetAt, stateAfter: 'paused' });
    expect(second).toMatchObject({ outcome: 'completed', stateAfter: 'complete', resumedSessionId: first!.sessionId });
    expect(Date.parse(second!.startedAt)).toBeGreaterThanOrEqual(Date.parse(resetAt));
    // The CLI was asked to resume that session by its id.
    expect(calls(log).map((c) => c.resume)).toEqual([null, first!.sessionId]);
    expect(calls(log)[1]!.args).toEqual(expect.arrayContaining(['--resume', first!.sessionId!]));
    // The resumed run reported the session's whole cost (0.01 before the limit, 0.05 a turn after):
    // each run counts what it added, so the session is counted once.
    expect(first!.costUsd).toBe(0.01);
    expect(second!.costUsd! + first!.costUsd!).toBeCloseTo(finalCost(second!.transcriptPath), 10);
    expect(second!.costUsd!).toBeLessThan(finalCost(second!.transcriptPath));
  }, 180_000);

  it('beyond --max-wait the team stays paused (exit 3); another team on the account pauses until the same reset without starting; a later run resumes both', async () => {
    const { root, env, log, limit } = await claudeFederation(['docs', 'api'], 12);
    const first = await runFed(['--root', root, 'run', '--team', 'docs', '--max-wait', '1s'], {
      env,
      timeoutMs: 120_000,
    });
    expect(first.code, first.stdout + first.stderr).toBe(3);
    const resetAt = resetOf(limit);
    expect(first.stdout).toContain(`resumes at ${resetAt}`);

    // The second team, on the same claude account, before the reset: paused with the same resumeAt.
    const api = await runFed(['--root', root, 'launch', '--team', 'api', '--json'], { env, timeoutMs: 60_000 });
    expect(api.code, api.stderr).toBe(3);
    const launched = JSON.parse(api.stdout) as { outcome: string; state: string; reason: string; lastRun: LaunchRun };
    expect(launched).toMatchObject({ outcome: 'paused', state: 'paused' });
    expect(launched.lastRun).toMatchObject({ outcome: 'rate-limited', resumeAt: resetAt, exitCode: null });
    expect(launched.reason).toContain(`the claude account is rate-limited until ${resetAt} (team docs met the limit)`);
    expect(calls(log)).toHaveLength(1);

    const docs = await show(root, 'docs');
    expect(docs.status).toBe('paused');
    expect(docs.lastRun).toMatchObject({ outcome: 'rate-limited', resumeAt: resetAt });
    expect((await runFed(['--root', root, 'team', 'show', 'api'])).stdout).toMatch(
      new RegExp(`paused: +rate-limited, resumes at ${resetAt}`),
    );

    // A run before the reset with a short --max-wait skips both, saying when they resume.
    const early = await runFed(['--root', root, 'run', '--max-wait', '1s', '--json'], { env, timeoutMs: 60_000 });
    expect(early.code, early.stderr).toBe(3);
    expect((JSON.parse(early.stdout) as RunSummary).skipped).toEqual([
      { team: 'docs', reason: `rate-limited, resumes at ${resetAt} (after --max-wait)`, resumeAt: resetAt },
      { team: 'api', reason: `rate-limited, resumes at ${resetAt} (after --max-wait)`, resumeAt: resetAt },
    ]);

    await waitFor(() => Date.now() > Date.parse(resetAt), 60_000, 'the reset');
    const later = await runFed(['--root', root, 'run', '--json'], { env, timeoutMs: 120_000 });
    expect(later.code, later.stderr).toBe(0);
    expect((JSON.parse(later.stdout) as RunSummary).teams.map((t) => [t.team, t.resumed, t.outcome])).toEqual([
      ['docs', true, 'complete'],
      ['api', true, 'complete'],
    ]);
    const docsSession = runsOf(root, 'docs')[0]!.sessionId;
    const resumes = calls(log).map((c) => c.resume);
    expect(resumes).toHaveLength(3);
    expect(resumes).toEqual(expect.arrayContaining([null, docsSession]));
  }, 240_000);

  it('Ctrl-C while waiting leaves the team paused with its resumeAt, and records no run for the wait (exit 3)', async () => {
    const { root, env, limit } = await claudeFederation(['docs'], 60);
    const { FED_ROOT: _r, FED_TEAM: _t, ...inherited } = process.env;
    const child = spawn(process.execPath, [FED_BIN, '--root', root, 'run'], {
      env: { ...inherited, FED_TELEMETRY_ENABLED: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await waitFor(() => stdout.includes('docs: waiting for the rate limit to reset at'), 60_000, 'the wait');
      child.kill('SIGINT');
      expect(await exited).toBe(3);
    } finally {
      child.kill('SIGKILL');
    }
    const resetAt = resetOf(limit);
    expect(runsOf(root, 'docs').map((r) => [r.outcome, r.resumeAt])).toEqual([['rate-limited', resetAt]]);
    expect(await show(root, 'docs')).toMatchObject({ status: 'paused', lastRun: { resumeAt: resetAt } });
  }, 120_000);
});
