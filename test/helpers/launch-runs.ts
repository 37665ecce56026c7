import { type LaunchRun, launchRunSchema } from 'fed/testing';

/**
 * Run `i` of a consultant's run journal as fed records one (checked against fed's schema), a minute after
 * the one before from 2026-01-01: three turns that made no progress, for a cent. `fields` change it.
 */
export function launchRunRecord(i: number, fields: Partial<LaunchRun> = {}): LaunchRun {
  const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
  return launchRunSchema.parse({
    runId: `run-${i}`,
    preset: 'claude',
    command: ['claude', '-p', '<prompt>'],
    sessionId: null,
    resumedSessionId: null,
    outcome: 'no-progress',
    reason: null,
    exitCode: 0,
    signal: null,
    turns: 3,
    inputTokens: 1_000,
    outputTokens: 100,
    costUsd: 0.01,
    stateBefore: 'researching',
    stateAfter: 'ready',
    progressed: true,
    sandboxed: false,
    transcriptPath: `.fed/logs/runs/run-${i}.jsonl`,
    startedAt: at,
    endedAt: at,
    ...fields,
  });
}
