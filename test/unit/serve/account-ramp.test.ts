import { describe, expect, it } from 'vitest';
import { AccountRamp } from '../../../src/apps/serve/account-ramp.js';

/** Teams resuming from one account's rate limit start in a ramp, which widens when the limit bites again. */
describe('AccountRamp', () => {
  const reset = Date.parse('2026-11-25T12:00:00Z');

  it('starts the first team at the reset and each next one a gap after the one before', () => {
    const ramp = new AccountRamp(15_000, 300_000);
    expect(ramp.slot('claude', reset)).toBe(reset);
    ramp.started('claude', reset);
    expect(ramp.slot('claude', reset)).toBe(reset + 15_000);
    ramp.started('claude', reset + 15_000);
    expect(ramp.slot('claude', reset)).toBe(reset + 30_000);
    // Another account has a ramp of its own; a later reset is never moved earlier.
    expect(ramp.slot('codex', reset)).toBe(reset);
    expect(ramp.slot('claude', reset + 3_600_000)).toBe(reset + 3_600_000);
  });

  it('doubles the gap when a team of the ramp meets the limit again, up to the cap, and halves it back', () => {
    const ramp = new AccountRamp(15_000, 60_000);
    ramp.started('claude', reset);
    ramp.ended('claude', true);
    expect(ramp.gapOf('claude')).toBe(30_000);
    expect(ramp.slot('claude', reset)).toBe(reset + 30_000);
    ramp.ended('claude', true);
    ramp.ended('claude', true);
    expect(ramp.gapOf('claude')).toBe(60_000);
    ramp.ended('claude', false);
    expect(ramp.gapOf('claude')).toBe(30_000);
    ramp.ended('claude', false);
    ramp.ended('claude', false);
    expect(ramp.gapOf('claude')).toBe(15_000);
    // An account no team of which has started is told nothing.
    ramp.ended('codex', true);
    expect(ramp.gapOf('codex')).toBe(15_000);
  });
});
