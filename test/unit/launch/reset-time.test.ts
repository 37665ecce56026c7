import { describe, expect, it } from 'vitest';
import { rateLimitBackoffMs, resetTimeFromText } from '../../../src/apps/launch/reset-time.js';

const now = new Date('2026-11-23T14:10:00Z');
const at = (text: string) => resetTimeFromText(text, now)?.toISOString();

describe('resetTimeFromText', () => {
  it.each([
    ['Rate limit reached. Please try again in 5 minutes.', '2026-11-23T14:15:00.000Z'],
    ['429 Too Many Requests: retry after 120 seconds', '2026-11-23T14:12:00.000Z'],
    ['usage limit reached, try again in 2 hours', '2026-11-23T16:10:00.000Z'],
    ['quota exhausted; resets in 1.5h', '2026-11-23T15:40:00.000Z'],
    ['processed in 30s', undefined],
    ['Please retry in 30s', '2026-11-23T14:10:30.000Z'],
    ['HTTP 429\nRetry-After: 90', '2026-11-23T14:11:30.000Z'],
  ])('a relative time: %j', (text, expected) => {
    expect(at(text)).toBe(expected);
  });

  it.each([
    ['limit reached; it resets at 2026-11-23T18:00:00Z', '2026-11-23T18:00:00.000Z'],
    ['available again after 2026-11-24T01:30:00+02:00', '2026-11-23T23:30:00.000Z'],
  ])('an ISO date-time: %j', (text, expected) => {
    expect(at(text)).toBe(expected);
  });

  it.each([
    ['rate limited until reset at 15:00 UTC', '2026-11-23T15:00:00.000Z'],
    ['try again at 14:05 UTC', '2026-11-24T14:05:00.000Z'],
    ["You've hit your limit · resets 3pm (UTC)", '2026-11-23T15:00:00.000Z'],
    ["You've hit your limit · resets 3pm (Europe/Paris)", '2026-11-24T14:00:00.000Z'],
    ['Usage limit reached, resets at 9:30 am (America/New_York)', '2026-11-23T14:30:00.000Z'],
    ['Usage limit reached, resets at 9:05 am (America/New_York)', '2026-11-24T14:05:00.000Z'],
    ['resets at 12am UTC', '2026-11-24T00:00:00.000Z'],
    ['resets at 12pm UTC', '2026-11-24T12:00:00.000Z'],
  ])('a time of day, the next one to come, in the zone it names: %j', (text, expected) => {
    expect(at(text)).toBe(expected);
  });

  it('a time of day without a zone is this machine’s clock', () => {
    const found = resetTimeFromText('resets 11pm', now)!;
    expect(found.getTime()).toBeGreaterThan(now.getTime());
    expect(found.getTime() - now.getTime()).toBeLessThanOrEqual(24 * 3_600_000);
    expect(found.getHours()).toBe(23);
    expect(found.getMinutes()).toBe(0);
  });

  it.each([
    'API Error: 429 rate_limit_error: Number of requests has exceeded your rate limit',
    'quota exceeded in 5 regions',
    'failed at 3 files',
    'resets at 25:00 UTC',
    'resets at 13pm',
    '',
  ])('no reset time in %j', (text) => {
    expect(at(text)).toBeUndefined();
  });
});

describe('rateLimitBackoffMs', () => {
  it('doubles from a minute for each rate-limited run in a row, up to an hour', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map((n) => rateLimitBackoffMs(n) / 60_000)).toEqual([
      1, 2, 4, 8, 16, 32, 60, 60, 60,
    ]);
    expect(rateLimitBackoffMs(0)).toBe(60_000);
  });
});
