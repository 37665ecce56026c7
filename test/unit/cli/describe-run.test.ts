import { describe, expect, it } from 'vitest';
import { describeRun } from '../../../src/cli/describe-run.js';
import type { LaunchRun } from 'fed/testing';

describe("a run's line in fed launch and fed team show", () => {
  const run = {
    preset: 'claude',
    outcome: 'completed',
    reason: null,
    turns: 3,
    costUsd: null,
    fixAttempts: 0,
    sessionId: null,
    transcriptPath: '/t.jsonl',
  } as unknown as LaunchRun;

  it('says plainly when the agent ran without the sandbox: as the user, with the user home (issue 48)', () => {
    expect(describeRun({ ...run, sandboxed: true })).toBe('claude completed, 3 turns, sandboxed, transcript /t.jsonl');
    expect(describeRun({ ...run, sandboxed: false })).toBe(
      "claude completed, 3 turns, not sandboxed: the agent ran as you, with your home, your credentials and this machine's network, transcript /t.jsonl",
    );
  });

  it("says what a team's sandbox allowance gives up, on every run (issue 80)", () => {
    expect(describeRun({ ...run, sandboxed: true, sandboxAllows: ['unix-sockets'] })).toBe(
      "claude completed, 3 turns, sandboxed, allowing unix-sockets (its agent may make Unix sockets, so it reaches every host socket it can see (a database's, Docker's — root on this machine — the D-Bus buses')), transcript /t.jsonl",
    );
  });
});
