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
      'claude completed, 3 turns, not sandboxed: the agent ran as you, with your home, transcript /t.jsonl',
    );
  });
});
