import { describe, expect, it } from 'vitest';
import { claudePreset } from '../../../src/apps/launch/presets/claude.js';
import { emptyStats } from 'fed/testing';

describe('claude: a rejected rate_limit_event', () => {
  it('keeps its reset, and the error result that follows is that limit whatever its words', () => {
    const stats = emptyStats();
    claudePreset.onEvent!(
      {
        type: 'rate_limit_event',
        rate_limit_info: { status: 'rejected', resetsAt: 1_795_000_000, rateLimitType: 'five_hour' },
      },
      stats,
    );
    claudePreset.onEvent!(
      { type: 'result', subtype: 'success', is_error: true, result: "You've hit your limit · resets 3pm" },
      stats,
    );
    expect(stats.resetsAt).toBe(new Date(1_795_000_000_000).toISOString());
    expect(stats.final).toMatchObject({ outcome: 'rate-limited' });
  });

  it('an allowed one changes nothing', () => {
    const stats = emptyStats();
    claudePreset.onEvent!({ type: 'rate_limit_event', rate_limit_info: { status: 'allowed_warning' } }, stats);
    claudePreset.onEvent!({ type: 'result', subtype: 'success', is_error: true, result: 'boom' }, stats);
    expect(stats).toMatchObject({ resetsAt: null, final: { outcome: 'crashed' } });
  });
});
