import { describe, expect, it } from 'vitest';
import { renderEvent } from '../../../src/cli/commands/serve.js';

describe("fed serve's lines", () => {
  const ended = { kind: 'ended' as const, at: '2026-11-26T16:11:30.123Z', team: 'docs', reason: null, resumeAt: null };

  it('says the state a launch left only where it adds to the outcome', () => {
    expect(renderEvent({ ...ended, outcome: 'complete', state: 'complete', durationMs: 1_200 })).toBe(
      '2026-11-26T16:11:30Z docs: complete after 1 s',
    );
    expect(
      renderEvent({
        ...ended,
        outcome: 'paused',
        state: 'paused',
        reason: 'rate limited',
        resumeAt: '2026-11-26T17:00:00.000Z',
        durationMs: 4_000,
      }),
    ).toBe('2026-11-26T16:11:30Z docs: paused after 4 s: rate limited; resumes at 2026-11-26T17:00:00.000Z');
    expect(renderEvent({ ...ended, outcome: 'waiting', state: 'reviewing', durationMs: 2_000 })).toBe(
      '2026-11-26T16:11:30Z docs: waiting (reviewing) after 2 s',
    );
  });

  it('says which teams a stop paused and which it left owed, for the next start', () => {
    const stopped = { kind: 'stopped' as const, at: '2026-11-26T16:11:30.123Z' };
    expect(renderEvent({ ...stopped, paused: [], owed: [] })).toBe('2026-11-26T16:11:30Z stopped');
    expect(renderEvent({ ...stopped, paused: ['docs'], owed: ['core', 'readme'] })).toBe(
      '2026-11-26T16:11:30Z stopped; paused docs — the next fed serve resumes it; core, readme stopped with their runs unrecorded (the backend could not be written in time) — the next fed serve records and resumes them',
    );
  });
});
