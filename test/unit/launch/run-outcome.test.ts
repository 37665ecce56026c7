import { describe, expect, it } from 'vitest';
import { AGENT_PRESET_CATALOG, classifyError, emptyStats } from 'fed/testing';
import { pausesTeam, runOutcome, type OutcomeInput } from '../../../src/apps/launch/judge/run-outcome.js';

const input = (over: Partial<OutcomeInput>): OutcomeInput => ({
  preset: AGENT_PRESET_CATALOG.claude,
  stats: emptyStats(),
  exit: { code: 0, signal: null },
  stop: undefined,
  finished: false,
  progressed: false,
  ...over,
});

describe('run outcomes', () => {
  it.each([
    ['API Error: 429 rate_limit_error', 'rate-limited'],
    ['Quota exceeded for quota metric', 'rate-limited'],
    ['Invalid API key · Please run /login', 'auth'],
    ['unexpected status 401 Unauthorized', 'auth'],
    ['BudgetExceededError: spent 5.01', 'budget'],
    ['Reached max turns (10)', 'max-turns'],
    ['TypeError: cannot read properties of undefined', 'crashed'],
  ])('classifies %j as %s', (message, outcome) => {
    expect(classifyError(message).outcome).toBe(outcome);
  });

  it('never trusts exit 0 alone: a CLI that reported a rate limit and exited 0 was rate-limited', () => {
    const stats = { ...emptyStats(), final: { outcome: 'rate-limited' as const, message: '429' } };
    expect(runOutcome(input({ stats })).outcome).toBe('rate-limited');
    expect(runOutcome(input({})).outcome).toBe('no-progress');
  });

  it('a finished lifecycle is completed whatever the exit; the launcher’s own stop comes next', () => {
    expect(runOutcome(input({ finished: true, exit: { code: 1, signal: null } })).outcome).toBe('completed');
    expect(
      runOutcome(
        input({ stop: { kind: 'limit', outcome: 'budget', message: 'cost' }, exit: { code: null, signal: 'SIGTERM' } }),
      ).outcome,
    ).toBe('budget');
    expect(runOutcome(input({ stop: { kind: 'paused' } })).outcome).toBe('interrupted');
    // Fenced (its host out of touch, or the team moved away): interrupted, saying why.
    const fenced = { kind: 'fenced', message: 'stopped: host beta unheard' } as const;
    expect(runOutcome(input({ stop: fenced, exit: { code: null, signal: 'SIGTERM' } }))).toEqual({
      outcome: 'interrupted',
      message: 'stopped: host beta unheard',
    });
  });

  it('a documented exit code counts when the stream said nothing (gemini 53 = turn limit)', () => {
    expect(runOutcome(input({ preset: AGENT_PRESET_CATALOG.gemini, exit: { code: 53, signal: null } })).outcome).toBe(
      'max-turns',
    );
    expect(runOutcome(input({ exit: { code: 2, signal: null } }))).toEqual({
      outcome: 'crashed',
      message: 'the agent exited with code 2',
    });
  });

  it('a lifecycle the agent failed is failed, and one fed failed for a refused completion rejected, whatever the exit or stop', () => {
    const failed = { outcome: 'failed' as const, message: 'required information cannot be found: nothing here' };
    expect(runOutcome(input({ failure: failed, exit: { code: 1, signal: null } }))).toEqual(failed);
    const rejected = { outcome: 'rejected' as const, message: 'codebase modified: README.md' };
    expect(runOutcome(input({ failure: rejected, stop: { kind: 'timeout', message: 'late' } }))).toEqual(rejected);
  });

  it('a completion refused and never accepted is rejected over the exit code, not over a stop or what the CLI said', () => {
    const refused = 'document structure cannot be determined: 1 violation(s)';
    expect(runOutcome(input({ refused }))).toEqual({ outcome: 'rejected', message: refused });
    expect(runOutcome(input({ refused, exit: { code: 2, signal: null } })).outcome).toBe('rejected');
    expect(runOutcome(input({ refused, stop: { kind: 'paused' } })).outcome).toBe('interrupted');
    const stats = { ...emptyStats(), final: { outcome: 'rate-limited' as const, message: '429' } };
    expect(runOutcome(input({ refused, stats })).outcome).toBe('rate-limited');
    expect(runOutcome(input({ refused, finished: true })).outcome).toBe('completed');
  });

  it('a CLI that exits at once, silent on stdout, with a message on stderr refused to start: its message is the reason', () => {
    const rootRule = '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons';
    const refusing = { exit: { code: 1, signal: null }, stderr: ['', rootRule] };
    expect(runOutcome(input(refusing))).toEqual({ outcome: 'refused', message: `${rootRule} (exit 1)` });
    // Not a refusal: it spoke on stdout, made progress, said nothing, exited 0, or was killed.
    expect(runOutcome(input({ ...refusing, spoke: true })).outcome).toBe('crashed');
    expect(runOutcome(input({ ...refusing, progressed: true })).outcome).toBe('crashed');
    expect(runOutcome(input({ ...refusing, stderr: [] })).outcome).toBe('crashed');
    expect(runOutcome(input({ ...refusing, exit: { code: 0, signal: null } })).outcome).toBe('no-progress');
    expect(runOutcome(input({ ...refusing, exit: { code: null, signal: 'SIGKILL' } })).outcome).toBe('crashed');
    // What the CLI's stream or a documented exit code says comes first.
    const stats = { ...emptyStats(), error: { outcome: 'auth' as const, message: 'authentication_failed' } };
    expect(runOutcome(input({ ...refusing, stats })).outcome).toBe('auth');
    expect(
      runOutcome(input({ ...refusing, preset: AGENT_PRESET_CATALOG.gemini, exit: { code: 53, signal: null } })).outcome,
    ).toBe('max-turns');
  });

  it('pauses on transient outcomes, on a login or start the operator must fix, and on a crash only after progress', () => {
    for (const outcome of ['rate-limited', 'budget', 'max-turns', 'interrupted', 'timeout', 'auth', 'refused'] as const)
      expect(pausesTeam(outcome, false)).toBe(true);
    expect(pausesTeam('crashed', false)).toBe(false);
    expect(pausesTeam('crashed', true)).toBe(true);
    expect(pausesTeam('auth', true)).toBe(true);
    expect(pausesTeam('no-progress', true)).toBe(false);
    expect(pausesTeam('failed', true)).toBe(false);
    expect(pausesTeam('rejected', true)).toBe(false);
  });
});
